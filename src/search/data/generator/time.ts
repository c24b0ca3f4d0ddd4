import { Rng } from './random.js';

/** Time units and the observation window before `now`. */

export const SECOND = 1000;
export const DAY = 86_400_000;
export const YEAR = 365 * DAY;
export const WINDOW = 730 * DAY;

export function iso(ms: number): string {
  return new Date(Math.floor(ms / SECOND) * SECOND).toISOString();
}

/** last_seen skewed to recent, first_seen between the window start and last_seen, also skewed to recent. */
export function seenWindow(rng: Rng, now: number, recency = 3): { first: number; last: number } {
  const start = now - WINDOW;
  const last = now - WINDOW * Math.pow(rng.next(), recency);
  const first = last - (last - start) * Math.pow(rng.next(), 1.6);
  return { first: Math.floor(first / SECOND) * SECOND, last: Math.floor(last / SECOND) * SECOND };
}
