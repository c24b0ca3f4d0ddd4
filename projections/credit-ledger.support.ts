/** `ledger-account-<id>` → `account:<id>` (the payer a ledger stream belongs to). */
export function payerOfLedgerStream(streamId: string): string {
  const rest = streamId.slice('ledger-'.length);
  const dash = rest.indexOf('-');
  return `${rest.slice(0, dash)}:${rest.slice(dash + 1)}`;
}
