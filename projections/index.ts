import type { ProjectionDefinition } from '../src/platform/projections/projection-definition.js';
import { accessTokensProjection } from './access-tokens.projection.js';
import { accountsProjection } from './accounts.projection.js';
import { apiKeysProjection } from './api-keys.projection.js';
import { auditIndexProjection } from './audit-index.projection.js';
import { creditStateProjection } from './credit-state.projection.js';
import { creditUsageProjection } from './credit-usage.projection.js';
import { eventStreamsProjection } from './event-streams.projection.js';
import { exportsProjection } from './exports.projection.js';
import { openReservationsProjection } from './open-reservations.projection.js';
import { ssoStaffProjection } from './sso-staff.projection.js';
import { organizationsProjection } from './organizations.projection.js';
import { exposureScopesProjection } from './exposure-scopes.projection.js';
import { exposureInventoryProjection } from './exposure-inventory.projection.js';
import { exposureHistoryProjection } from './exposure-history.projection.js';
import { exposureReportsProjection } from './exposure-reports.projection.js';
import { exposureMonitoringProjection } from './exposure-monitoring.projection.js';

/** Every read model the service maintains. Each module in this folder owns one. */
export const allProjections: readonly ProjectionDefinition[] = [
  eventStreamsProjection,
  accountsProjection,
  apiKeysProjection,
  accessTokensProjection,
  creditStateProjection,
  creditUsageProjection,
  openReservationsProjection,
  exportsProjection,
  ssoStaffProjection,
  organizationsProjection,
  exposureScopesProjection,
  exposureInventoryProjection,
  exposureHistoryProjection,
  exposureReportsProjection,
  exposureMonitoringProjection,
  auditIndexProjection,
];
