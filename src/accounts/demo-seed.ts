import { randomBytes } from 'node:crypto';
import type { CommandBus } from '@nestjs/cqrs';
import { commandEnvelope } from '../platform/event-sourcing/command-metadata.js';
import type { EventStore } from '../platform/event-store/event-store.port.js';
import { emailClaimStreamId } from './commands/account.handlers.js';
import { IssueApiKey, PurchaseCredits, RegisterAccount } from './commands/account.commands.js';

export const DEMO_EMAIL = 'demo@example.com';
export const DEMO_PURCHASED_CREDITS = 1000;

export interface DemoAccount {
  readonly accountId: string;
  readonly email: string;
  readonly password: string;
  readonly apiKey: string;
}

/**
 * On a store that has never had the demo account: a Professional account with purchased credits, a password
 * and an API key, both printed once by `npm start` and never stored in clear.
 */
export async function seedDemoAccount(
  eventStore: EventStore,
  commands: CommandBus,
): Promise<DemoAccount | null> {
  if ((await eventStore.streamVersion(emailClaimStreamId(DEMO_EMAIL))) !== null) return null;
  const envelope = () => commandEnvelope({ actor: 'system:demo-seed', payer: 'system' });
  const password = randomBytes(12).toString('base64url');
  const { accountId } = await commands.execute(
    new RegisterAccount(DEMO_EMAIL, 'professional', password, envelope()),
  );
  await commands.execute(new PurchaseCredits(accountId, DEMO_PURCHASED_CREDITS, envelope()));
  const key = await commands.execute(new IssueApiKey(accountId, 'demo', envelope()));
  return { accountId, email: DEMO_EMAIL, password, apiKey: key.key };
}
