/**
 * The start-up index plan of the MongoDB adapters, computed from what listIndexes returns (no server needed):
 * a renamed index drops the OLD name, a redefined one drops and recreates, an unchanged one is left alone.
 */
import { describe, expect, it } from '@jest/globals';
import { planIndexes, type ExistingIndex } from '../../../src/platform/mongodb/index-reconciliation.js';
import { indexesOf } from '../../../src/search/observation-index/mongodb-query-compiler.js';

const idIndex: ExistingIndex = { name: '_id_', key: { _id: 1 } };

describe('planIndexes', () => {
  it('does nothing when the collection already has the declared indexes', () => {
    const declared = indexesOf('hosts');
    const existing = [idIndex, ...declared.map((index) => ({ name: index.name, key: index.keys }))];
    expect(planIndexes(existing, declared)).toEqual({ drop: [], create: [] });
  });

  it('creates every declared index on a new collection', () => {
    const declared = indexesOf('hosts');
    expect(planIndexes([idIndex], declared)).toEqual({ drop: [], create: declared });
  });

  it('drops the index under its old name when only the name changed (fields unchanged)', () => {
    const plan = planIndexes(
      [idIndex, { name: 'recent_order', key: { 't.last_seen': -1, _id: 1 } }],
      [{ name: 'recent', keys: { 't.last_seen': -1, _id: 1 } }],
    );
    expect(plan.drop).toEqual(['recent_order']);
    expect(plan.create.map((index) => index.name)).toEqual(['recent']);
  });

  it('replaces an index whose name stays but whose keys changed', () => {
    const plan = planIndexes(
      [idIndex, { name: 'recent', key: { 't.last_seen': -1 } }],
      [{ name: 'recent', keys: { 't.last_seen': -1, _id: 1 } }],
    );
    expect(plan).toEqual({
      drop: ['recent'],
      create: [{ name: 'recent', keys: { 't.last_seen': -1, _id: 1 } }],
    });
  });

  it('treats key order and direction as part of the definition', () => {
    const plan = planIndexes(
      [idIndex, { name: 'by_cve', key: { observation_id: 1, cve_id: 1 } }],
      [{ name: 'by_cve', keys: { cve_id: 1, observation_id: 1 } }],
    );
    expect(plan.drop).toEqual(['by_cve']);
  });

  it('replaces an index whose uniqueness or partial filter changed', () => {
    const declared = [
      { name: 'u', keys: { a: 1 as const }, unique: true, partialFilterExpression: { a: { $exists: true } } },
    ];
    expect(planIndexes([idIndex, { name: 'u', key: { a: 1 } }], declared).drop).toEqual(['u']);
    expect(
      planIndexes(
        [
          idIndex,
          { name: 'u', key: { a: 1 }, unique: true, partialFilterExpression: { a: { $exists: true } } },
        ],
        declared,
      ),
    ).toEqual({ drop: [], create: [] });
  });

  it('leaves indexes it does not declare, and the _id index, alone', () => {
    const plan = planIndexes(
      [idIndex, { name: 'operator_added', key: { 'k.port': 1, 'k.country': 1 } }],
      [{ name: 'k_port', keys: { 'k.port': 1 } }],
    );
    expect(plan).toEqual({ drop: [], create: [{ name: 'k_port', keys: { 'k.port': 1 } }] });
  });
});
