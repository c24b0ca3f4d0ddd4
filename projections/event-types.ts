/** Narrows an event of a projection's union to the types listed (a domain's events, say). */
export function isOneOf<E extends { readonly type: string }, T extends E['type']>(
  event: E,
  types: readonly T[],
): event is Extract<E, { readonly type: T }> {
  return (types as readonly string[]).includes(event.type);
}
