import type { ReservationSettled } from '../src/credits/domain/ledger.js';
import type { ProjectionDefinition } from '../src/platform/projections/projection-definition.js';
import { payerOfLedgerStream } from './credit-ledger.support.js';

/**
 * Credits spent per payer, cycle and usage category. `usageMcp` counts the part of `usage` spent through an
 * MCP client: a subset, never an extra charge.
 */
export interface CreditUsageDocument {
  readonly id: string;
  readonly payer: string;
  readonly cycleStart: string;
  readonly usage: Readonly<Record<string, number>>;
  readonly usageMcp: Readonly<Record<string, number>>;
  readonly [field: string]: unknown;
}

export const CREDIT_USAGE = 'credit_usage';

export const creditUsageId = (payer: string, cycleStart: string): string => `${payer}|${cycleStart}`;

export const creditUsageProjection: ProjectionDefinition<ReservationSettled> = {
  name: 'credit-usage',
  version: 1,
  collections: {
    [CREDIT_USAGE]: {
      indexes: [
        {
          name: 'by_payer',
          fields: [
            ['payer', 1],
            ['cycleStart', -1],
          ],
        },
      ],
    },
  },
  handles: ['ReservationSettled'],
  reads: (event) => [
    {
      collection: CREDIT_USAGE,
      id: creditUsageId(payerOfLedgerStream(event.streamId), event.data.cycleStart),
    },
  ],
  apply(event, view) {
    const data = event.data;
    const spent = data.fromAllowance + data.fromPurchased;
    if (spent === 0) return;
    const payer = payerOfLedgerStream(event.streamId);
    const id = creditUsageId(payer, data.cycleStart);
    const current = view.get<CreditUsageDocument>(CREDIT_USAGE, id);
    const usage = { ...(current?.usage ?? {}) };
    const usageMcp = { ...(current?.usageMcp ?? {}) };
    usage[data.category] = (usage[data.category] ?? 0) + spent;
    if (data.channel === 'mcp') usageMcp[data.category] = (usageMcp[data.category] ?? 0) + spent;
    view.put(CREDIT_USAGE, { id, payer, cycleStart: data.cycleStart, usage, usageMcp });
  },
};
