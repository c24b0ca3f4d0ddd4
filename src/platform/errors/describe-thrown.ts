/** A readable line for anything thrown, including the non-Error objects wasm code throws. */
export function describeThrown(thrown: unknown): string {
  if (thrown instanceof Error) return thrown.message || thrown.name;
  if (typeof thrown === 'object' && thrown !== null) {
    const { name, errno, code, message } = thrown as Record<string, unknown>;
    const parts = [name, code, errno !== undefined ? `errno ${String(errno)}` : undefined, message].filter(
      (part) => typeof part === 'string' || typeof part === 'number',
    );
    if (parts.length > 0) return parts.join(' ');
    try {
      return JSON.stringify(thrown);
    } catch {
      return Object.prototype.toString.call(thrown);
    }
  }
  return String(thrown);
}

/** `text` cut to `maxLength` characters (and an ellipsis), for messages, logs and records that must stay short. */
export function truncate(text: string, maxLength: number): string {
  return text.length <= maxLength ? text : `${text.slice(0, maxLength)}…`;
}
