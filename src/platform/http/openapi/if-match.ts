/** The `If-Match` header of the routes that take a version by precondition (Versioning 2), documented once. */
export const IF_MATCH = {
  name: 'If-Match',
  required: true,
  description: 'the quoted version read from the resource ("3"); a stale one is 409, a missing one 428',
  schema: { type: 'string' as const, pattern: '^"[0-9]+"$' },
};

/** Where a route accepts the version but does not require it (scope monitoring). */
export const OPTIONAL_IF_MATCH = {
  ...IF_MATCH,
  required: false,
  description: 'the quoted scope version; optional here (a blank one is 422)',
};
