import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { whoisRecordOf } from '../src/search/data/collectors/whois-raw.js';
import { CollectedRecordRefused } from '../src/search/data/collectors/collected.js';
import { validateRecord } from '../src/search/domain/records.js';
import type { Measurement } from './bench-support.js';

/**
 * Agreement of the whois-raw format with another parser's results (issue 17): python-whois's expected
 * files beside the raw port-43 answers in ../shared/data/whois. The reference is not ground truth: every
 * disagreement is listed so a person can check the raw text. Registrars compare case- and space-insensitively,
 * dates as UTC days; a field counts only where the reference has a value.
 */

/** The samples beside the project (`../shared/data/whois`, as the other real-data tests find theirs). */
export const WHOIS_SAMPLES =
  process.env.WHOIS_SAMPLES ?? join(process.cwd(), '..', 'shared', 'data', 'whois');

export type AgreementField = 'registrar' | 'created' | 'expires';
export const AGREEMENT_FIELDS: readonly AgreementField[] = ['registrar', 'created', 'expires'];

export interface Disagreement {
  readonly domain: string;
  readonly field: AgreementField;
  readonly ours: string | undefined;
  readonly reference: string;
}

export interface FieldAgreement {
  readonly field: AgreementField;
  /** Samples where the reference has a value. */
  readonly compared: number;
  readonly agreed: number;
  readonly percent: number;
  /** Samples where only we have a value (not counted). */
  readonly oursOnly: number;
}

export interface WhoisAgreement {
  readonly samples: number;
  readonly refused: readonly string[];
  readonly fields: readonly FieldAgreement[];
  readonly disagreements: readonly Disagreement[];
}

const REFERENCE_KEYS: Record<AgreementField, string> = {
  registrar: 'registrar',
  created: 'creation_date',
  expires: 'expiration_date',
};

export function measureWhoisAgreement(samples = WHOIS_SAMPLES): WhoisAgreement {
  const domains = readdirSync(join(samples, 'raw')).sort();
  const counts = new Map(AGREEMENT_FIELDS.map((field) => [field, { compared: 0, agreed: 0, oursOnly: 0 }]));
  const disagreements: Disagreement[] = [];
  const refused: string[] = [];
  for (const domain of domains) {
    const expected = JSON.parse(readFileSync(join(samples, 'expected', domain), 'utf8')) as Record<
      string,
      unknown
    >;
    let record: Record<string, unknown> = {};
    try {
      record = whoisRecordOf(readFileSync(join(samples, 'raw', domain), 'utf8'), {
        seenAt: '2026-11-28T00:00:00.000Z',
        source: join(samples, 'raw', domain),
      });
    } catch (error) {
      if (!(error instanceof CollectedRecordRefused)) throw error;
      refused.push(domain);
    }
    for (const field of AGREEMENT_FIELDS) {
      const count = counts.get(field)!;
      const reference = referenceValue(expected[REFERENCE_KEYS[field]]);
      const ours = typeof record[field] === 'string' ? (record[field] as string) : undefined;
      if (reference === undefined) {
        if (ours !== undefined) count.oursOnly++;
        continue;
      }
      count.compared++;
      const same =
        ours !== undefined &&
        (field === 'registrar' ? squash(ours) === squash(reference) : dayOf(ours) === dayOf(reference));
      if (same) count.agreed++;
      else disagreements.push({ domain, field, ours, reference });
    }
  }
  const fields = AGREEMENT_FIELDS.map((field) => {
    const { compared, agreed, oursOnly } = counts.get(field)!;
    return { field, compared, agreed, oursOnly, percent: compared === 0 ? 100 : (100 * agreed) / compared };
  });
  return { samples: domains.length, refused, fields, disagreements };
}

/** python-whois gives a list when a label repeats: its first value is the domain's own. */
function referenceValue(value: unknown): string | undefined {
  const first = Array.isArray(value) ? (value[0] as unknown) : value;
  return typeof first === 'string' && first.trim() !== '' ? first : undefined;
}

const squash = (text: string) => text.toLowerCase().replace(/\s+/g, '');

/** The UTC day of an ISO date or of python-whois's `YYYY-MM-DD HH:MM:SS+HH:MM`. */
function dayOf(date: string): string {
  const parsed = new Date(date.replace(' ', 'T'));
  return Number.isNaN(parsed.getTime()) ? date : parsed.toISOString().slice(0, 10);
}

export function formatWhoisAgreement(agreement: WhoisAgreement): string {
  const rows = agreement.fields.map(
    (row) =>
      `| ${row.field} | ${row.compared} | ${row.agreed} | ${row.percent.toFixed(1)}% | ${row.oursOnly} |`,
  );
  const listed = agreement.disagreements.map(
    (row) => `- ${row.domain} ${row.field}: ours ${row.ours ?? '(none)'}, reference ${row.reference}`,
  );
  return [
    `${agreement.samples} samples, ${agreement.refused.length} refused${agreement.refused.length ? ` (${agreement.refused.join(', ')})` : ''}`,
    '| field | reference has a value | agreed | agreement | ours only |',
    '|---|---|---|---|---|',
    ...rows,
    ...(listed.length ? ['disagreements:', ...listed] : []),
  ].join('\n');
}

/**
 * The bench leg (`BENCH_ONLY=whois`): agreement per field, as a percentage, and responses parsed per second
 * into validated records beside whoiser's parseDomainWhois alone on the same responses in the same run (what
 * the registry rules and the validation gate cost).
 */
export function benchWhoisAgreement(rounds = Number(process.env.BENCH_WHOIS_ROUNDS ?? 200)): Measurement[] {
  const agreement = measureWhoisAgreement();
  process.stderr.write(`${formatWhoisAgreement(agreement)}\n`);
  const measurements: Measurement[] = agreement.fields.map((row) => ({
    target: 'whois-raw',
    name: `${row.field} agreement with python-whois (${row.agreed}/${row.compared})`,
    value: Number(row.percent.toFixed(1)),
    unit: '%',
  }));

  const samples = readdirSync(join(WHOIS_SAMPLES, 'raw')).map((domain) => ({
    domain,
    source: join(WHOIS_SAMPLES, 'raw', domain),
    text: readFileSync(join(WHOIS_SAMPLES, 'raw', domain), 'utf8'),
  }));
  const { parseDomainWhois } = createRequire(import.meta.url)('whoiser/src/parsers.js') as {
    parseDomainWhois(domain: string, whois: string, ignorePrivacy: boolean): unknown;
  };
  const seenAt = '2026-11-28T00:00:00.000Z';
  const whoiserAlone = (sample: (typeof samples)[number]) =>
    parseDomainWhois(sample.domain, sample.text, true);
  const intoRecords = (sample: (typeof samples)[number]) => {
    try {
      return validateRecord('whois', whoisRecordOf(sample.text, { seenAt, source: sample.source }));
    } catch (error) {
      if (error instanceof CollectedRecordRefused) return undefined;
      throw error;
    }
  };
  const timed = (parse: (sample: (typeof samples)[number]) => unknown, times: number): number => {
    const started = performance.now();
    for (let round = 0; round < times; round++) for (const sample of samples) parse(sample);
    return performance.now() - started;
  };
  timed(whoiserAlone, 20); // warm-up of both paths
  timed(intoRecords, 20);
  // Alternating slices, so load from other processes falls on both sides alike.
  let whoiserMs = 0;
  let oursMs = 0;
  const slice = Math.max(1, Math.floor(rounds / 10));
  for (let done = 0; done < rounds; done += slice) {
    whoiserMs += timed(whoiserAlone, slice);
    oursMs += timed(intoRecords, slice);
  }
  const answers = Math.ceil(rounds / slice) * slice * samples.length;
  const baseline = Math.round(answers / (whoiserMs / 1000));
  const ours = Math.round(answers / (oursMs / 1000));
  measurements.push({
    target: 'whois-raw',
    name: `responses parsed into validated whois records (${samples.length} samples × ${rounds})`,
    value: ours,
    unit: 'responses/s',
    baseline,
    baselineName: 'whoiser parseDomainWhois alone',
    ratio: ours / baseline,
  });
  return measurements;
}
