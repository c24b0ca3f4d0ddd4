/**
 * What an export costs and how far it may go: 1 credit per 100 rows written, limited by the credits it could
 * reserve and the plan's results quota. Pure.
 */

/** Contract: 1 credit per 100 rows. */
export const ROWS_PER_CREDIT = 100;

/** Credits for rows actually written: ceil(rows / 100). */
export function creditsForRows(rows: number): number {
  return Math.ceil(rows / ROWS_PER_CREDIT);
}

/** The most rows `credits` pay for. */
export function rowsForCredits(credits: number): number {
  return credits * ROWS_PER_CREDIT;
}

export type TruncationCause = 'credits' | 'quota' | 'growth';

/**
 * How many rows an export may write, given what the index holds, the credits it could reserve and what is
 * left of the plan's results quota this cycle; and why it is cut short when it is.
 */
export function exportAllowance(input: {
  readonly matching: number;
  readonly availableCredits: number;
  readonly quotaLeft: number;
}): { rowLimit: number; reserveCredits: number; cause: TruncationCause | null } {
  const matching = Math.max(0, input.matching);
  const affordable = rowsForCredits(Math.max(0, input.availableCredits));
  const quotaLeft = Math.max(0, input.quotaLeft);
  const rowLimit = Math.min(matching, affordable, quotaLeft);
  const cause: TruncationCause | null =
    rowLimit >= matching ? null : quotaLeft < affordable ? 'quota' : 'credits';
  // A full export reserves for every matching row, rounded up to the next hundred: rows added to the index while
  // it runs are exported up to what the reservation covers.
  const reserveCredits =
    cause === null
      ? Math.min(creditsForRows(matching), Math.max(0, input.availableCredits))
      : creditsForRows(rowLimit);
  const fullLimit = Math.min(rowsForCredits(reserveCredits), quotaLeft);
  return { rowLimit: cause === null ? fullLimit : rowLimit, reserveCredits, cause };
}

export function truncationReason(cause: TruncationCause, written: number, matching: number): string {
  switch (cause) {
    case 'credits':
      return `The credit balance covered ${written} of ${matching} matching rows (1 credit per 100 rows), so the export stopped there.`;
    case 'quota':
      return `The plan's export results quota for this billing cycle allowed ${written} of ${matching} matching rows, so the export stopped there.`;
    case 'growth':
      return `More rows matched while the export ran than when it started; it stopped at the ${written} rows its credit reservation covered.`;
  }
}
