import { allProjections } from '../../projections/index.js';
import { moveAccountCredentialsOutOfTheLog } from '../accounts/commands/legacy-account-credentials.js';
import { accountUpcasters } from '../accounts/commands/account-upcasters.js';
import { moveSsoCredentialsOutOfTheLog } from '../organizations/sso/commands/legacy-sso-credentials.js';
import { ssoUpcasters } from '../organizations/sso/commands/sso-upcasters.js';
import { Upcasters } from '../platform/event-sourcing/upcasters.js';
import type { ServiceContextOptions } from '../platform/service-context.js';
import { openFeatureStorage } from './feature-storage.js';

/**
 * What the service is made of, for the platform: its read models, its features' stores and the upcasters of
 * events whose stored shape changed. Every composition root (main.ts, the CLI, the test setup, benchmarks,
 * scripts) opens its ServiceContext with it, so the platform itself names no feature.
 */
export const serviceComposition = {
  projections: allProjections,
  features: openFeatureStorage,
  // One per (event type, older schema version), each with its own test.
  upcasters: new Upcasters([...accountUpcasters, ...ssoUpcasters]),
  // Credential material written into events before ADR 65 moves to the credential store, once.
  legacyEventRewriters: [moveAccountCredentialsOutOfTheLog, moveSsoCredentialsOutOfTheLog],
} satisfies Pick<ServiceContextOptions, 'projections' | 'features' | 'upcasters' | 'legacyEventRewriters'>;
