import { rmSync } from 'node:fs';

/** Removes the run's embedded database templates (test/support/pglite-template.ts). */
export default function globalTeardown() {
  if (process.env.PGLITE_TEMPLATE_DIR)
    rmSync(process.env.PGLITE_TEMPLATE_DIR, { recursive: true, force: true });
}
