/** `ledger-account-<id>` → `account:<id>` (the payer a ledger stream belongs to). */
export function payerOfLedgerStream(streamId: string): string {
  const rest = streamId.slice('ledger-'.length);
  const dash = rest.indexOf('-');
  return `${rest.slice(0, dash)}:${rest.slice(dash + 1)}`;
}

export interface SettledData {
  readonly reservationId: string;
  readonly charged: number;
  readonly fromAllowance: number;
  readonly fromPurchased: number;
  readonly waived: number;
  readonly category: string;
  readonly channel: string;
  readonly cycleStart: string;
}
