import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import {
  CollectedRecordRefused,
  type CollectorFormat,
} from '../../../../src/search/data/collectors/collected.js';
import { COLLECTOR_FORMATS } from '../../../../src/search/data/collectors/formats.js';
import { leakixFormat } from '../../../../src/search/data/collectors/leakix.js';
import { x509Format } from '../../../../src/search/data/collectors/x509.js';
import { zgrab2Format } from '../../../../src/search/data/collectors/zgrab2.js';
import { ZGRAB2_MODULES } from '../../../../src/search/data/collectors/zgrab2-modules.js';
import { validateRecord } from '../../../../src/search/domain/records.js';
import { CONTEXT, sharedFile } from './collected-support.js';

/**
 * Whatever a collector wrote, a format answers with records `validateRecord` accepts or with refusals that say
 * why: never another exception (the importer reports refusals per line and goes on).
 */
function expectOnlyValidRecordsOrRefusals(format: CollectorFormat, item: string | Buffer): void {
  let items;
  try {
    items = format.records(item, CONTEXT);
  } catch (error) {
    expect(error).toBeInstanceOf(CollectedRecordRefused);
    expect((error as Error).message).not.toBe('');
    return;
  }
  for (const collected of items) {
    if (collected instanceof CollectedRecordRefused) continue;
    const validation = validateRecord(collected.dataset, collected.record);
    expect(validation).toMatchObject({ ok: true });
  }
}

const json = fc.jsonValue({ maxDepth: 3 });
const text = fc.oneof(fc.string(), fc.constantFrom('SSH-2.0-x\u0000y', '220 a\r\n221 b', '\u001b[0m', ''));

describe('collector formats on arbitrary input', () => {
  it('zgrab2: random scans of every module (odd ports, statuses, results) give valid records or refusals', () => {
    const scan = fc.record(
      {
        status: fc.constantFrom(
          'success',
          'application-error',
          'protocol-error',
          'io-timeout',
          'connection-refused',
        ),
        protocol: fc.oneof(fc.constantFrom(...Object.keys(ZGRAB2_MODULES)), fc.string()),
        timestamp: fc.oneof(
          fc.date({ noInvalidDate: true }).map((date) => date.toISOString()),
          fc.string(),
        ),
        port: fc.oneof(fc.integer({ min: -5, max: 70_000 }), fc.string()),
        result: fc.oneof(
          json,
          fc.record({ banner: text, server_id: fc.record({ raw: text }), server_version: text }),
          fc.record({
            response: fc.record({
              status_code: fc.integer({ min: 0, max: 1000 }),
              status_line: text,
              body: text.map((title) => `<title>${title}</title>`),
              headers: fc.record({ server: fc.array(text), unknown: json }),
              request: fc.record({
                url: fc.record({ scheme: fc.constantFrom('http', 'https'), host: text }),
              }),
            }),
          }),
        ),
      },
      { requiredKeys: ['status'] },
    );
    const line = fc.record(
      {
        ip: fc.oneof(fc.ipV4(), fc.ipV6(), fc.string()),
        domain: fc.oneof(fc.domain(), fc.string()),
        data: fc.dictionary(fc.string({ minLength: 1 }), fc.oneof(scan, json), { minKeys: 1, maxKeys: 3 }),
      },
      { requiredKeys: ['data'] },
    );
    fc.assert(
      fc.property(line, (value) => expectOnlyValidRecordsOrRefusals(zgrab2Format, JSON.stringify(value))),
      { numRuns: 400 },
    );
  });

  it('LeakIX: the sample event with any field replaced gives valid records or refusals', () => {
    const event = JSON.parse(sharedFile('leakix/l9event.json').toString('utf8')) as Record<string, unknown>;
    const keys = Object.keys(event);
    fc.assert(
      fc.property(fc.constantFrom(...keys), json, (key, value) => {
        expectOnlyValidRecordsOrRefusals(leakixFormat, JSON.stringify({ ...event, [key]: value }));
      }),
      { numRuns: 300 },
    );
  });

  it('x509: a real certificate with bytes changed, cut or followed by junk gives valid records or refusals', () => {
    const pem = sharedFile('certs/facebookOnionV3Address.pem').toString('latin1');
    const body = /-----BEGIN CERTIFICATE-----([\s\S]*?)-----END CERTIFICATE-----/.exec(pem)![1]!;
    const der = Buffer.from(body.replace(/\s+/g, ''), 'base64');
    fc.assert(
      fc.property(
        fc.nat(der.length - 1),
        fc.integer({ min: 0, max: 255 }),
        fc.nat(der.length),
        fc.uint8Array({ maxLength: 8 }),
        (at, byte, cut, junk) => {
          const changed = Buffer.from(der);
          changed[at] = byte;
          const damaged = Buffer.concat([changed.subarray(0, Math.max(cut, 8)), Buffer.from(junk)]);
          expectOnlyValidRecordsOrRefusals(x509Format, damaged);
          const asPem = `-----BEGIN CERTIFICATE-----\n${damaged.toString('base64')}\n-----END CERTIFICATE-----\n`;
          expectOnlyValidRecordsOrRefusals(x509Format, Buffer.from(asPem));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('sniffing never throws on arbitrary bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 512 }), (bytes) => {
        for (const format of COLLECTOR_FORMATS)
          expect(typeof format.sniff(Buffer.from(bytes))).toBe('boolean');
      }),
      { numRuns: 300 },
    );
  });
});
