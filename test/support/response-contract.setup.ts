import { afterAll } from '@jest/globals';
import type { ResponseContract } from './openapi-contract.js';

/** The response checks of every test service this file started (jest gives each test file its own modules). */
export const checkedContractsOfThisFile: ResponseContract[] = [];

// Runs for every test file (jest setupFilesAfterEnv), after its tests: an answer of one of its services that did not
// match the OpenAPI document fails the file. Kept out of `dispose` so a suite's own clean-up always runs in full
// (a throwing dispose skipped the clean-up after it and left jest hanging).
afterAll(() => {
  const violations = checkedContractsOfThisFile.flatMap((contract) => contract.violations.splice(0));
  if (violations.length > 0) {
    throw new Error(
      `${violations.length} answer(s) do not match the OpenAPI document:\n${violations.join('\n')}`,
    );
  }
});
