import { defineConfig } from 'vitest/config';

/**
 * The web console (issue 19): built into dist/console, which the service serves at `/` (no second server).
 * Vite's own transform handles TSX with the automatic JSX runtime; no React plugin is needed for a build.
 */
export default defineConfig({
  root: import.meta.dirname,
  base: '/',
  build: {
    outDir: '../dist/console',
    emptyOutDir: true,
    sourcemap: false,
    reportCompressedSize: false,
    rolldownOptions: {
      // React Router marks its modules "use client" (for server components); a client-only bundle ignores it.
      onLog(level, log, handler) {
        if (log.code === 'MODULE_LEVEL_DIRECTIVE') return;
        handler(level, log);
      },
    },
  },
  test: {
    root: import.meta.dirname,
    environment: 'jsdom',
    include: ['test/**/*.test.{ts,tsx}'],
  },
});
