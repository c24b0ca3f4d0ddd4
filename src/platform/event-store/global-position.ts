/**
 * A global position is an opaque, order-preserving string: two unsigned 64-bit numbers, each written as
 * 20 zero-padded decimal digits and joined by a dash. PostgreSQL uses (transaction id, sequence);
 * EventStoreDB uses (commit, prepare). Fixed width makes string order equal numeric order, so positions
 * can be stored as text checkpoints and compared anywhere.
 */
export type GlobalPosition = string & { readonly __brand?: 'GlobalPosition' };

const WIDTH = 20;
/** The written form of a position (also documented as such in the OpenAPI document). */
export const GLOBAL_POSITION_PATTERN = /^\d{20}-\d{20}$/;

export function encodePosition(
  major: bigint | string | number,
  minor: bigint | string | number,
): GlobalPosition {
  return `${BigInt(major).toString().padStart(WIDTH, '0')}-${BigInt(minor).toString().padStart(WIDTH, '0')}`;
}

export function decodePosition(position: GlobalPosition): { major: bigint; minor: bigint } {
  if (!isGlobalPosition(position)) throw new Error(`not a global position: ${position}`);
  const [major, minor] = position.split('-') as [string, string];
  return { major: BigInt(major), minor: BigInt(minor) };
}

export function isGlobalPosition(value: unknown): value is GlobalPosition {
  return typeof value === 'string' && GLOBAL_POSITION_PATTERN.test(value);
}

/** Negative when a < b; null sorts before every position. */
export function comparePositions(a: GlobalPosition | null, b: GlobalPosition | null): number {
  if (a === b) return 0;
  if (a === null) return -1;
  if (b === null) return 1;
  return a < b ? -1 : 1;
}

export function maxPosition(a: GlobalPosition | null, b: GlobalPosition | null): GlobalPosition | null {
  return comparePositions(a, b) >= 0 ? a : b;
}
