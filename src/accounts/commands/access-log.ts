import { Inject, Injectable } from '@nestjs/common';
import { sessionReference } from '../../platform/auth/credential-reference.js';
import { CLOCK, type Clock } from '../../platform/clock/clock.js';
import { commandEnvelope, type CommandEnvelope } from '../../platform/event-sourcing/command-metadata.js';
import { StreamWriter } from '../../platform/event-sourcing/stream-writer.js';
import type { GlobalPosition } from '../../platform/event-store/global-position.js';
import {
  accessStreamId,
  emailDigest,
  unknownEmailAccessStreamId,
  type AccountAccessEvent,
  type SignInFailure,
} from '../domain/account-access.js';

/**
 * Records how accounts reach the service (ADR 69) as evidence beside the session and token stores, which are
 * not event-sourced: one append per fact, never a password, a session id or a token. A token's revocation is a
 * decision, not evidence: RevokeAccessToken decides it on the same stream (ADR 74).
 */
@Injectable()
export class AccessLog {
  constructor(
    @Inject(StreamWriter) private readonly writer: StreamWriter,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async signedIn(
    accountId: string,
    sessionId: string,
    request: { ip: string; userAgent: string; requestId?: string },
  ): Promise<void> {
    const session = sessionReference(sessionId);
    const self = `account:${accountId}` as const;
    await this.record(
      accessStreamId(accountId),
      {
        type: 'SignedIn',
        data: { accountId, session, ip: request.ip, userAgent: request.userAgent, at: this.now() },
      },
      commandEnvelope({
        actor: self,
        payer: self,
        credential: `session:${session}`,
        surface: 'session',
        ...(request.requestId !== undefined ? { requestId: request.requestId } : {}),
      }),
    );
  }

  /** A failed attempt, by nobody proven: on behalf of the email's account when one uses it. */
  async signInFailed(
    email: string,
    accountId: string | null,
    failure: SignInFailure,
    request: { ip: string; requestId?: string },
  ): Promise<void> {
    await this.record(
      accountId ? accessStreamId(accountId) : unknownEmailAccessStreamId(email),
      {
        type: 'SignInFailed',
        data: { accountId, emailDigest: emailDigest(email), failure, ip: request.ip, at: this.now() },
      },
      commandEnvelope({
        actor: 'anonymous',
        payer: accountId ? `account:${accountId}` : 'system',
        credential: null,
        surface: 'session',
        ...(request.requestId !== undefined ? { requestId: request.requestId } : {}),
      }),
    );
  }

  async signedOut(accountId: string, sessionId: string, envelope: CommandEnvelope): Promise<void> {
    await this.record(
      accessStreamId(accountId),
      { type: 'SignedOut', data: { accountId, session: sessionReference(sessionId), at: this.now() } },
      envelope,
    );
  }

  async accessTokenIssued(
    accountId: string,
    token: { tokenId: string; client: string; scopes: readonly string[]; issuedAt: Date; expiresAt: Date },
    envelope: CommandEnvelope,
  ): Promise<{ readonly position: GlobalPosition }> {
    return this.record(
      accessStreamId(accountId),
      {
        type: 'AccessTokenIssued',
        data: {
          accountId,
          tokenId: token.tokenId,
          client: token.client,
          scopes: [...token.scopes],
          issuedAt: token.issuedAt.toISOString(),
          expiresAt: token.expiresAt.toISOString(),
          at: this.now(),
        },
      },
      envelope,
    );
  }

  private now(): string {
    return this.clock.now().toISOString();
  }

  private async record(
    stream: string,
    event: AccountAccessEvent,
    envelope: CommandEnvelope,
  ): Promise<{ readonly position: GlobalPosition }> {
    return this.writer.record({
      stream,
      type: event.type,
      data: event.data as unknown as Record<string, unknown>,
      // Each attempt has an envelope (a command id) of its own: two identical attempts are two events.
      eventKey: `${event.type}:${envelope.commandId}`,
      metadata: envelope.metadata,
    });
  }
}
