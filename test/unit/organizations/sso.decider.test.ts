/**
 * Rule 12: the single sign-on decider, given/when/then, and a property: whatever the owner does in whatever
 * order, enforcement is never on without a recovery code that was tested and saved at the moment it was turned on.
 */
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { hashRecoveryCode, formatRecoveryCode } from '../../../src/organizations/sso/domain/recovery-code.js';
import {
  ssoDecider,
  type SsoCommand,
  type SsoContext,
  type SsoEvent,
  type SsoState,
} from '../../../src/organizations/sso/domain/sso.js';
import { deciderSpec } from '../../support/decider-spec.js';

const { given } = deciderSpec(ssoDecider);
const now = new Date('2026-03-01T10:00:00.000Z');
const at = now.toISOString();
const org = '00000000-0000-4000-8000-000000000001';
const members = {
  owner: 'owner',
  admin: 'administrator',
  analyst: 'analyst',
  client: 'external_client',
} as const;
const as = (actorAccountId: string | null, organizationOpen = true): SsoContext => ({
  now,
  organizationId: org,
  actorAccountId,
  members,
  organizationOpen,
});
// Credentials are named by id: the sealed secret and the code's hash live in the credential store (ADR 65).
const secretId = 'sso-client-secret-1';
const codeId = 'sso-recovery-code-1';
const issuer = 'https://login.example.com';
const code = formatRecoveryCode(new Uint8Array(25).map((_, i) => i * 7));
const configured: SsoEvent = {
  type: 'SsoProviderConfigured',
  data: {
    organizationId: org,
    issuer,
    clientId: 'c1',
    clientSecretId: secretId,
    secretChanged: true,
    configuredAt: at,
  },
};
const issued: SsoEvent = {
  type: 'SsoRecoveryCodeIssued',
  data: { codeId, issuedAt: at },
};
const tested: SsoEvent = { type: 'SsoRecoveryCodeTested', data: { testedAt: at } };
const saved: SsoEvent = { type: 'SsoRecoveryCodeSaved', data: { savedAt: at } };
const enabled: SsoEvent = { type: 'SsoEnforcementEnabled', data: { enabledAt: at } };

describe('rule 12: the single sign-on decider', () => {
  it('configures the provider for the owner only; a non-member learns nothing, a restricted organization changes nothing', () => {
    const command: SsoCommand = {
      type: 'ConfigureProvider',
      issuer,
      clientId: 'c1',
      clientSecretId: secretId,
    };
    given([]).when(command, as('owner')).then([configured]);
    given([]).when(command, as('admin')).then('forbidden');
    given([]).when(command, as('stranger')).then('not_found');
    given([]).when(command, as('owner', false)).then('organization_restricted');
    given([])
      .when({ ...command, issuer: 'http://login.example.com' }, as('owner'))
      .then('invalid_input');
    given([])
      .when({ ...command, clientSecretId: null }, as('owner'))
      .then('invalid_input');
    // Same settings without a new secret: nothing to record.
    given([configured])
      .when({ ...command, clientSecretId: null }, as('owner'))
      .then([]);
  });

  it('refuses enforcement until the recovery code was issued, tested and saved', () => {
    const enable: SsoCommand = { type: 'EnableEnforcement' };
    given([]).when(enable, as('owner')).then('sso_not_configured');
    expect(given([configured]).when(enable, as('owner')).then('recovery_code_required').details).toEqual({
      issued: false,
      tested: false,
      saved: false,
    });
    given([configured, issued]).when(enable, as('owner')).then('recovery_code_required');
    given([configured, issued, tested]).when(enable, as('owner')).then('recovery_code_required');
    given([configured, issued, saved]).when(enable, as('owner')).then('recovery_code_required');
    given([configured, issued, tested, saved]).when(enable, as('owner')).then([enabled]);
    given([configured, issued, tested, saved]).when(enable, as('admin')).then('forbidden');
  });

  it('tests the code by the credential it matched (hashes forgive typing), and a wrong code is refused', () => {
    const loose = code.toLowerCase().replace(/-/g, ' ');
    expect(hashRecoveryCode(loose)).toBe(hashRecoveryCode(code));
    given([configured, issued])
      .when({ type: 'TestRecoveryCode', presentedCodeId: codeId }, as('owner'))
      .then([tested]);
    given([configured, issued])
      .when({ type: 'TestRecoveryCode', presentedCodeId: null }, as('owner'))
      .then('recovery_code_invalid');
    // A code that matched a credential no longer current (reissued meanwhile) is wrong too.
    given([configured, issued])
      .when({ type: 'TestRecoveryCode', presentedCodeId: 'sso-recovery-code-0' }, as('owner'))
      .then('recovery_code_invalid');
  });

  it('records no secret: configuration and issue events name credentials by id only', () => {
    const { events } = given([])
      .when({ type: 'ConfigureProvider', issuer, clientId: 'c1', clientSecretId: secretId }, as('owner'))
      .decided();
    expect(events[0]!.data).not.toHaveProperty('clientSecret');
    const issuedNow = given([configured]).when({ type: 'IssueRecoveryCode', codeId }, as('owner')).decided();
    expect(issuedNow.events[0]!.data).toEqual({ codeId, issuedAt: at });
  });

  it('maps a provider identity to staff only, links the subject once, and never lets an email take over a linked account', () => {
    const signIn = (subject: string, verifiedEmailAccountId: string | null): SsoCommand => ({
      type: 'SignInWithProvider',
      issuer,
      subject,
      verifiedEmailAccountId,
    });
    const linked: SsoEvent = {
      type: 'SsoSubjectLinked',
      data: { issuer, subject: 's1', accountId: 'analyst', linkedAt: at },
    };
    const signedIn: SsoEvent = { type: 'SsoSignedIn', data: { accountId: 'analyst', signedInAt: at } };
    given([configured]).when(signIn('s1', 'analyst'), as(null)).then([linked, signedIn]);
    given([configured, linked]).when(signIn('s1', null), as(null)).then([signedIn]);
    given([configured, linked]).when(signIn('s2', 'analyst'), as(null)).then('sso_not_member');
    given([configured]).when(signIn('s3', 'client'), as(null)).then('sso_not_member');
    given([configured]).when(signIn('s4', 'stranger'), as(null)).then('sso_not_member');
    given([configured]).when(signIn('s5', null), as(null)).then('sso_not_member');
    given([]).when(signIn('s1', 'analyst'), as(null)).then('not_found');
  });

  it('lets the owner recover once; the code is then gone', () => {
    const use: SsoCommand = {
      type: 'UseRecoveryCode',
      accountId: 'owner',
      presentedCodeId: codeId,
    };
    const { state } = given([configured, issued, tested, saved, enabled])
      .when(use, as('owner'))
      .then([{ type: 'SsoRecoveryCodeUsed', data: { accountId: 'owner', usedAt: at } }]);
    expect(state).toMatchObject({ enforced: true, recovery: null });
    given([configured, issued, { type: 'SsoRecoveryCodeUsed', data: { accountId: 'owner', usedAt: at } }])
      .when(use, as('owner'))
      .then('unauthenticated');
    given([configured, issued])
      .when({ ...use, accountId: 'admin' }, as('admin'))
      .then('unauthenticated');
  });

  it('property: enforcement only ever turns on over a tested and saved recovery code', () => {
    const commands = fc.constantFrom<SsoCommand>(
      { type: 'ConfigureProvider', issuer, clientId: 'c1', clientSecretId: secretId },
      { type: 'IssueRecoveryCode', codeId },
      { type: 'IssueRecoveryCode', codeId: 'sso-recovery-code-2' },
      { type: 'TestRecoveryCode', presentedCodeId: codeId },
      { type: 'AcknowledgeRecoveryCode' },
      { type: 'EnableEnforcement' },
      { type: 'DisableEnforcement' },
      { type: 'UseRecoveryCode', accountId: 'owner', presentedCodeId: codeId },
    );
    fc.assert(
      fc.property(
        fc.array(fc.tuple(commands, fc.constantFrom('owner', 'admin', 'analyst')), { maxLength: 30 }),
        (steps) => {
          let state: SsoState = ssoDecider.initialState;
          for (const [command, actor] of steps) {
            let events: readonly SsoEvent[];
            try {
              events = ssoDecider.decide(command, state, as(actor));
            } catch {
              continue;
            }
            for (const event of events) {
              if (event.type === 'SsoEnforcementEnabled') {
                expect(state.recovery?.testedAt && state.recovery.savedAt).toBeTruthy();
                expect(actor).toBe('owner');
              }
              state = ssoDecider.evolve(state, event);
            }
          }
        },
      ),
    );
  });
});
