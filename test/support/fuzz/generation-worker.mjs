/**
 * Worker thread of the generator check (generation-check.ts): loads the fuzz's TypeScript modules with Node's
 * own type stripping (their `./x.js` imports resolved to `./x.ts`), samples every operation of the document it
 * is given, and posts `{ starting }` before each operation and `{ reports }` at the end. The test terminates it
 * when an operation takes past its deadline.
 */
import { existsSync } from 'node:fs';
import { registerHooks } from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';

registerHooks({
  resolve(specifier, context, nextResolve) {
    if (specifier.startsWith('.') && specifier.endsWith('.js') && context.parentURL?.endsWith('.ts')) {
      const typescript = new URL(specifier.replace(/\.js$/, '.ts'), context.parentURL);
      if (existsSync(typescript)) return nextResolve(typescript.href, context);
    }
    return nextResolve(specifier, context);
  },
});

const { checkGeneration } = await import('./generation-check.ts');
const reports = checkGeneration(workerData.document, (operation) =>
  parentPort.postMessage({ starting: operation }),
);
parentPort.postMessage({ reports });
