/**
 * masscan's -oJ and -oL output (written here as masscan 1.3 prints it: out-json.c and out-text.c) → hosts records
 * and fingerprint evidence; and content sniffing among the registered formats.
 */
import { describe, expect, it } from '@jest/globals';
import {
  CollectedRecordRefused,
  type CollectedRecord,
  type CollectorContext,
} from '../../../src/search/data/collectors/collected.js';
import { checkedRecord, formatOf } from '../../../src/search/data/collectors/collector-import.js';
import { COLLECTOR_FORMATS } from '../../../src/search/data/collectors/formats.js';
import { MASSCAN_FORMAT, unescapeListBanner } from '../../../src/search/data/collectors/masscan.js';
import { MASSCAN_JSON, MASSCAN_LIST } from '../../support/masscan-samples.js';

const CONTEXT: CollectorContext = { seenAt: '2026-11-28T00:00:00.000Z', source: 'scan.json' };

const records = (line: string): Array<CollectedRecord | CollectedRecordRefused> =>
  MASSCAN_FORMAT.records(line, CONTEXT);
const only = (line: string): CollectedRecord => {
  const found = records(line);
  expect(found).toHaveLength(1);
  expect(found[0]).not.toBeInstanceOf(CollectedRecordRefused);
  return found[0] as CollectedRecord;
};
const seen = (seconds: number) => {
  const iso = new Date(seconds * 1000).toISOString();
  return { first_seen: iso, last_seen: iso };
};

describe('masscan -oJ', () => {
  it('skips the array brackets and comma lines', () => {
    for (const line of ['[', ']', ',']) expect(records(line)).toEqual([]);
  });

  it('an open port becomes a hosts record at the scan time', () => {
    expect(only(MASSCAN_JSON[1]!)).toEqual({
      dataset: 'hosts',
      record: { ip: '192.0.2.10', port: 22, transport: 'tcp', ...seen(1700000000) },
      evidence: [],
    });
    expect(only(MASSCAN_JSON[11]!).record).toMatchObject({ port: 53, transport: 'udp' });
  });

  it('a closed port yields nothing', () => {
    expect(records(MASSCAN_JSON[13]!)).toEqual([]);
  });

  it('an SSH banner gives protocol, banner and ssh.banner evidence without the SSH-2.0- prefix', () => {
    expect(only(MASSCAN_JSON[3]!)).toEqual({
      dataset: 'hosts',
      record: {
        ip: '192.0.2.10',
        port: 22,
        transport: 'tcp',
        ...seen(1700000000),
        protocol: 'ssh',
        banner: 'SSH-2.0-OpenSSH_8.9p1 Ubuntu-3ubuntu0.6',
      },
      evidence: [{ matches: 'ssh.banner', text: 'OpenSSH_8.9p1 Ubuntu-3ubuntu0.6' }],
    });
  });

  it('an HTTP banner gives status, Server and the headers Recog matches', () => {
    const { record, evidence } = only(MASSCAN_JSON[5]!);
    expect(record).toMatchObject({
      protocol: 'http',
      banner:
        'HTTP/1.1 301 Moved Permanently\r\nServer: Apache/2.4.49 (Unix)\r\nX-Powered-By: PHP/7.4.3\r\n' +
        'Location: https://example.com/\r\n\r\n',
      http: { status: 301, server: 'Apache/2.4.49 (Unix)' },
    });
    expect(evidence).toEqual([
      { matches: 'http_header.server', text: 'Apache/2.4.49 (Unix)' },
      { matches: 'http_header.x-powered-by', text: 'PHP/7.4.3' },
    ]);
  });

  it('a title banner fills http.title; an SMTP greeting loses its code; IPv6 is canonical', () => {
    expect(only(MASSCAN_JSON[7]!)).toMatchObject({
      record: { http: { title: '301 Moved Permanently' }, protocol: 'http' },
      evidence: [{ matches: 'html_title', text: '301 Moved Permanently' }],
    });
    expect(only(MASSCAN_JSON[9]!)).toMatchObject({
      record: { ip: '2001:db8::5', port: 25, protocol: 'smtp' },
      evidence: [{ matches: 'smtp.banner', text: 'mail.example.com ESMTP Postfix (Ubuntu)' }],
    });
  });

  it('older masscan: a trailing comma and the closing {finished: 1}', () => {
    expect(only(`${MASSCAN_JSON[1]!},`).record).toMatchObject({ ip: '192.0.2.10', port: 22 });
    expect(records('{finished: 1}')).toEqual([]);
  });

  it('refuses what is not masscan JSON, with the reason', () => {
    expect(() => records('{   "ip": "192.0.2.1",   "timestamp": ')).toThrow(/invalid masscan JSON/);
    expect(() => records('{"timestamp": "1", "ports": []}')).toThrow('ip: missing');
    const [bad] = records(
      '{ "ip": "192.0.2.1", "timestamp": "1700000000", "ports": [ {"port": 70000, "proto": "tcp", "status": "open"} ] }',
    );
    expect(bad).toBeInstanceOf(CollectedRecordRefused);
    expect((bad as Error).message).toContain('port: must be from 1 to 65535');
    const [address] = records(
      '{ "ip": "192.0.2.300", "timestamp": "1", "ports": [ {"port": 1, "proto": "tcp"} ] }',
    );
    expect((address as Error).message).toContain('ip: not an address');
  });
});

describe('masscan -oL', () => {
  it('reads open and banner lines, unescaping \\xXX, and skips comments and non-TCP/UDP results', () => {
    expect(records('#masscan')).toEqual([]);
    expect(records('# end')).toEqual([]);
    expect(only(MASSCAN_LIST[1]!).record).toEqual({
      ip: '192.0.2.20',
      port: 21,
      transport: 'tcp',
      ...seen(1700000300),
    });
    expect(only(MASSCAN_LIST[2]!)).toMatchObject({
      record: { protocol: 'ftp', banner: '220 (vsFTPd 3.0.3)\r\n' },
      evidence: [{ matches: 'ftp.banner', text: '(vsFTPd 3.0.3)' }],
    });
    expect(only(MASSCAN_LIST[4]!)).toMatchObject({
      record: { protocol: 'http', http: { server: 'nginx/1.18.0' } },
      evidence: [{ matches: 'http_header.server', text: 'nginx/1.18.0' }],
    });
    expect(only(MASSCAN_LIST[5]!).record).toMatchObject({ http: { status: 200, server: 'nginx/1.18.0' } });
    expect(records(MASSCAN_LIST[6]!)).toEqual([]);
  });

  it('accepts a quoted banner and refuses a line of another shape', () => {
    expect(only('banner tcp 22 192.0.2.1 1700000000 ssh "SSH-2.0-dropbear_2019.78"').evidence).toEqual([
      { matches: 'ssh.banner', text: 'dropbear_2019.78' },
    ]);
    expect(() => records('Discovered open port 80/tcp on 192.0.2.1')).toThrow(/not a masscan -oL line/);
    expect(unescapeListBanner('a\\x5cb\\x22')).toBe('a\\b"');
  });

  it('every record it yields passes validateRecord (the id derived by the import)', () => {
    for (const line of [...MASSCAN_JSON, ...MASSCAN_LIST]) {
      for (const collected of records(line)) {
        const checked = checkedRecord(collected as CollectedRecord);
        expect([line, checked.ok]).toEqual([line, true]);
      }
    }
    const checked = checkedRecord(only(MASSCAN_JSON[9]!));
    expect(checked.ok && checked.record.id).toBe('[2001:db8::5]:25/tcp');
  });
});

describe('sniffing', () => {
  const head = (lines: readonly string[]) => Buffer.from(`${lines.join('\n')}\n`);

  it('recognizes masscan -oJ and -oL, and NDJSON as the fallback', () => {
    expect(formatOf(head(MASSCAN_JSON), 'a', COLLECTOR_FORMATS).name).toBe('masscan');
    expect(formatOf(head(MASSCAN_LIST), 'a', COLLECTOR_FORMATS).name).toBe('masscan');
    expect(formatOf(head(['', '{"id": "x"}']), 'a', COLLECTOR_FORMATS).name).toBe('ndjson');
    expect(MASSCAN_FORMAT.sniff(head(['[', '{"id": "192.0.2.1:80/tcp"}']))).toBe(false);
  });

  it('says so clearly when nothing fits, and honours a named format', () => {
    expect(() => formatOf(head(['hello']), 'notes.txt', COLLECTOR_FORMATS)).toThrow(
      /notes\.txt: no format recognizes this content \(tried .*masscan.*ndjson\); name it with --format/,
    );
    expect(() => formatOf(Buffer.alloc(0), '-', COLLECTOR_FORMATS)).toThrow(
      /standard input: no format recognizes this content \(it is empty\)/,
    );
    expect(formatOf(head(['hello']), 'notes.txt', COLLECTOR_FORMATS, 'masscan').name).toBe('masscan');
  });
});
