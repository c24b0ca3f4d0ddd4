#!/usr/bin/env node
import 'reflect-metadata';
import { createCliProgram, createCliRuntime } from './cli-program.js';

/**
 * Operator CLI (`npm run cli -- …`, or the `exposure-cli` bin). With the embedded database it works while the
 * service runs: it reaches the service's database through the socket in DATA_DIR instead of opening it again.
 */
const runtime = createCliRuntime();
runtime.endQuietlyWhenOutputCloses();
const program = createCliProgram(runtime);

await program.parseAsync(process.argv);
