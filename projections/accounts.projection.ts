import type {
  AccessTokensInvalidated,
  AccountRegistered,
  PasswordSet,
  PlanChanged,
} from '../src/accounts/domain/account.js';
import type { RecordedEvent } from '../src/platform/event-store/event-store.port.js';
import type { ProjectionDefinition } from '../src/platform/projections/projection-definition.js';

/** One document per account: sign-in lookup by email, plan and billing anchor for credit state. */
export interface AccountDocument {
  readonly id: string;
  readonly email: string;
  readonly plan: string;
  readonly cycleAnchor: string;
  /** The current password's credential in the credential store (ADR 65); never the hash. */
  readonly passwordCredentialId: string | null;
  readonly registeredAt: string;
  /**
   * Access tokens issued in or before this second are refused (ADR 75): the latest invalidation (a password
   * change), or null. The guard reads it with the account, so the rule costs no lookup of its own.
   */
  readonly accessTokensIssuedBefore: string | null;
  readonly [field: string]: unknown;
}

export const ACCOUNTS = 'accounts';

const accountId = (event: RecordedEvent): string => event.streamId.slice('account-'.length);

export const accountsProjection: ProjectionDefinition<
  AccountRegistered | PasswordSet | PlanChanged | AccessTokensInvalidated
> = {
  name: 'accounts',
  // 2: passwordCredentialId replaces passwordHash (ADR 65). 3: accessTokensIssuedBefore (ADR 75).
  version: 3,
  collections: { [ACCOUNTS]: { indexes: [{ name: 'by_email', fields: [['email', 1]], unique: true }] } },
  handles: ['AccountRegistered', 'PasswordSet', 'PlanChanged', 'AccessTokensInvalidated'],
  reads: (event) => [{ collection: ACCOUNTS, id: accountId(event) }],
  apply(event, view) {
    const id = accountId(event);
    switch (event.type) {
      case 'AccountRegistered': {
        const data = event.data;
        view.put(ACCOUNTS, {
          id,
          email: data.email,
          plan: data.plan,
          cycleAnchor: data.cycleAnchor,
          passwordCredentialId: null,
          registeredAt: event.recordedAt,
          accessTokensIssuedBefore: null,
        });
        return;
      }
      case 'PasswordSet':
        if (view.get(ACCOUNTS, id))
          view.patch(ACCOUNTS, id, { passwordCredentialId: event.data.credentialId });
        return;
      case 'PlanChanged':
        if (view.get(ACCOUNTS, id)) view.patch(ACCOUNTS, id, { plan: event.data.to });
        return;
      case 'AccessTokensInvalidated':
        if (view.get(ACCOUNTS, id))
          view.patch(ACCOUNTS, id, { accessTokensIssuedBefore: event.data.issuedBefore });
        return;
    }
  },
};
