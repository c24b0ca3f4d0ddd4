import { describe, expect, it } from '@jest/globals';
import {
  dataLoadDecider,
  dataLoadStream,
  MAX_LOAD_ERROR_LENGTH,
  type RecordDataLoad,
} from '../../../src/data-loads/domain/data-load.js';
import { deciderSpec } from '../../support/decider-spec.js';

const { given } = deciderSpec(dataLoadDecider);
const now = new Date('2026-03-10T09:15:00.000Z');
const file = {
  name: 'scan.json',
  format: 'zgrab2',
  bytes: 3097,
  sha256: 'a'.repeat(64),
  read: 1,
  written: 1,
  rejected: 0,
};
const dataLoad = (facts: Partial<RecordDataLoad> = {}): RecordDataLoad =>
  ({
    type: 'RecordObservationDataLoad',
    outcome: 'completed',
    load: {
      target: 'hosts',
      datasets: ['hosts'],
      formats: ['zgrab2'],
      files: [file],
      records: { read: 1, written: 1, merged: 0, rejected: 0, refused: 0 },
      fingerprinting: true,
      strict: false,
    },
    ...facts,
  }) as RecordDataLoad;

describe('data load decider', () => {
  it('records a load on the stream of what it loaded, with its outcome and time', () => {
    expect(dataLoadStream(dataLoad())).toBe('data-load-hosts');
    expect(
      dataLoadStream({
        type: 'RecordCatalogueLoad',
        outcome: 'completed',
        load: {} as never,
      }),
    ).toBe('vulnerability-catalogue');
    const { state } = given([])
      .when(dataLoad(), { now })
      .then([
        {
          type: 'ObservationDataLoaded',
          data: { ...dataLoad().load, outcome: 'completed', loadedAt: now.toISOString() } as never,
        },
      ]);
    expect(state).toEqual({ loads: 1, lastOutcome: 'completed' });
  });

  it('keeps why a stopped load stopped, shortened to what an event holds', () => {
    const error = `writing hosts failed: ${'x'.repeat(1000)}`;
    const [event] = dataLoadDecider.decide(
      dataLoad({ outcome: 'failed', error }),
      dataLoadDecider.initialState,
      {
        now,
      },
    );
    expect(event!.data).toMatchObject({ outcome: 'failed', error: error.slice(0, MAX_LOAD_ERROR_LENGTH) });
  });

  it('refuses a stopped load without its error, an unknown outcome, no files, or a malformed hash', () => {
    given([])
      .when(dataLoad({ outcome: 'interrupted' }), { now })
      .then('invalid_input');
    given([])
      .when(dataLoad({ outcome: 'done' as never }), { now })
      .then('invalid_input');
    const load = dataLoad().load as Extract<RecordDataLoad, { type: 'RecordObservationDataLoad' }>['load'];
    given([])
      .when(dataLoad({ load: { ...load, files: [] } } as never), { now })
      .then('invalid_input');
    given([])
      .when(dataLoad({ load: { ...load, files: [{ ...file, sha256: 'not-a-hash' }] } } as never), { now })
      .then('invalid_input');
  });
});
