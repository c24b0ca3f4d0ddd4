import nodemailer, { type Transporter } from 'nodemailer';
import type { SmtpConfig } from '../../platform/config/app-config.js';

export interface OutgoingMail {
  readonly to: string;
  readonly subject: string;
  readonly text: string;
  /** Stable per (notification, recipient): a resent message keeps its Message-ID, so clients can fold repeats. */
  readonly messageId: string;
}

/** Sends scope notification emails through the configured SMTP relay (nodemailer). */
export class SmtpMailer {
  private readonly transport: Transporter;

  constructor(private readonly config: SmtpConfig) {
    this.transport = nodemailer.createTransport({
      host: config.host,
      port: config.port,
      secure: config.port === 465,
      ...(config.user ? { auth: { user: config.user, pass: config.password ?? '' } } : {}),
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 20_000,
    });
  }

  /** Resolves with the relay's answer once it accepted the message; rejects when it did not. */
  async send(mail: OutgoingMail): Promise<string> {
    const info = await this.transport.sendMail({
      from: this.config.from,
      to: mail.to,
      subject: mail.subject,
      text: mail.text,
      messageId: mail.messageId,
    });
    const rejected = (info.rejected ?? []).map(String);
    if (rejected.length > 0) throw new Error(`the relay rejected ${rejected.join(', ')}`);
    return info.messageId;
  }

  close(): void {
    this.transport.close();
  }
}
