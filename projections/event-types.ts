/** Narrows an event of a projection's union to the types listed (a domain's events, say). */
export function isOneOf<E extends { readonly type: string }, T extends E['type']>(
  event: E,
  types: readonly T[],
): event is Extract<E, { readonly type: T }> {
  return (types as readonly string[]).includes(event.type);
}

/**
 * Every type of an event union, each named once: an event added to the domain breaks compilation here until
 * the projection decides to follow it (or excludes it from the union it declares, saying why).
 */
export function eventTypes<E extends { readonly type: string }>(types: {
  readonly [T in E['type']]: true;
}): E['type'][] {
  return Object.keys(types) as E['type'][];
}
