import { describe, expect, it } from '@jest/globals';
import {
  collectedTime,
  dnsName,
  keyword,
  portNumber,
  sshSoftwareVersion,
} from '../../../../src/search/data/collectors/collected-values.js';

describe('values read from collector output', () => {
  it('times: RFC 3339 as stored dates; Go zero time, impossible days and non-dates are no time', () => {
    expect(collectedTime('2018-04-06T19:37:52Z')).toBe('2018-04-06T19:37:52.000Z');
    expect(collectedTime('2024-05-01T08:30:00.123456789+02:00')).toBe('2024-05-01T06:30:00.123Z');
    expect(collectedTime('2024-05-01')).toBe('2024-05-01T00:00:00.000Z');
    expect(collectedTime('0001-01-01T00:00:00Z')).toBeUndefined();
    expect(collectedTime('2018-02-30T00:00:00Z')).toBeUndefined();
    expect(collectedTime('yesterday')).toBeUndefined();
    expect(collectedTime(1_700_000_000)).toBeUndefined();
  });

  it('ports: integers and digit strings from 1 to 65535', () => {
    expect([portNumber(443), portNumber('8080'), portNumber(' 22 ')]).toEqual([443, 8080, 22]);
    expect([portNumber(0), portNumber(65_536), portNumber('80a'), portNumber(80.5)]).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });

  it('keywords and names that would fail the record gate are left out instead', () => {
    expect(keyword('  nginx ')).toBe('nginx');
    expect(keyword('a\r\nb')).toBeUndefined();
    expect(keyword('x'.repeat(4097))).toBeUndefined();
    expect(dnsName('WWW.Example.COM.', { wildcard: false, singleLabel: false })).toBe('www.example.com');
    expect(dnsName('target', { wildcard: false, singleLabel: false })).toBeUndefined();
    expect(dnsName('*.example.com', { wildcard: true, singleLabel: true })).toBe('*.example.com');
  });

  it('SSH identification: the software and comment part Recog reads', () => {
    expect(sshSoftwareVersion('SSH-2.0-OpenSSH_7.2p2 Ubuntu-4ubuntu2.4\r\n')).toBe(
      'OpenSSH_7.2p2 Ubuntu-4ubuntu2.4',
    );
    expect(sshSoftwareVersion('SSH-1.99-Cisco-1.25')).toBe('Cisco-1.25');
    expect(sshSoftwareVersion('hello world')).toBeUndefined();
  });
});
