/**
 * The Recog XML loader (ADR 100): what Recog's own loader reads, as written (entities decoded, spaces kept,
 * base64 examples decoded), and files that are not Recog databases refused with a reason an operator can act on.
 */
import { describe, expect, it } from '@jest/globals';
import {
  MalformedRecogDatabase,
  parseRecogDatabase,
} from '../../../src/fingerprints/domain/recog-database.js';
import { RecogMatcher } from '../../../src/fingerprints/domain/recog-matcher.js';

const XML = `<?xml version="1.0" encoding="UTF-8"?>
<fingerprints matches="smtp.banner" protocol="SMTP" database_type="service" preference="0.20">
  <!-- <fingerprint pattern="commented out"/> is no fingerprint -->
  <fingerprint pattern="^([^ ]+) ESMTP Foo &lt;(\\d+)&gt;  x$" flags="REG_ICASE,REG_MULTILINE">
    <description>
      Foo   mail
      server
    </description>
    <example host.name="mx.example" service.version="2">mx.example ESMTP Foo &lt;2&gt;  x</example>
    <example _encoding="base64" service.version="3">bXggRVNNVFAgRm9vIDwzPiAgeA==</example>
    <example _filename="banner.bin"/>
    <param pos="1" name="host.name"/>
    <param pos="0" name="service.product" value="Foo"/>
    <param pos="2" name="service.version"/>
    <param pos="0" name="service.cpe23" value="cpe:/a:foo:foo:{service.version}"/>
    <param pos="0" name="service.note" value="{host.name} runs {service.product}"/>
  </fingerprint>
  <fingerprint pattern="^Bar( \\d)?$">
    <description>Bar</description>
    <example>Bar</example>
    <param pos="1" name="service.version"/>
    <param pos="0" name="service.cpe23" value="cpe:/a:bar:bar:{service.version}"/>
    <param pos="0" name="service.broken" value="{nothing.here}"/>
  </fingerprint>
</fingerprints>`;

describe('Recog database loading', () => {
  const database = parseRecogDatabase('mail.xml', XML);

  it('reads the file attributes and every fingerprint in order', () => {
    expect(database).toMatchObject({
      name: 'mail.xml',
      matches: 'smtp.banner',
      protocol: 'smtp',
      databaseType: 'service',
      preference: 0.2,
    });
    expect(database.fingerprints.map((fingerprint) => fingerprint.index)).toEqual([1, 2]);
    const [foo] = database.fingerprints;
    expect(foo).toMatchObject({
      pattern: '^([^ ]+) ESMTP Foo <(\\d+)>  x$',
      flags: ['REG_ICASE', 'REG_MULTILINE'],
      description: 'Foo mail server',
    });
    expect(foo!.params).toContainEqual({ pos: 1, name: 'host.name', value: '' });
  });

  it('keeps example text as written, decodes base64, marks examples kept in separate files', () => {
    const [first, second, third] = database.fingerprints[0]!.examples;
    expect(first).toEqual({
      text: 'mx.example ESMTP Foo <2>  x',
      expected: { 'host.name': 'mx.example', 'service.version': '2' },
    });
    expect(second).toEqual({ text: 'mx ESMTP Foo <3>  x', expected: { 'service.version': '3' } });
    expect(third).toMatchObject({ filename: 'banner.bin' });
  });

  it("matches as Recog does: captures, protocol, interpolation, '-' for a missing version in a CPE", () => {
    const matcher = new RecogMatcher([database]);
    expect(matcher.match('smtp.banner', 'MX.EXAMPLE esmtp foo <7>  X')?.params).toEqual({
      'host.name': 'MX.EXAMPLE',
      'service.product': 'Foo',
      'service.version': '7',
      'service.cpe23': 'cpe:/a:foo:foo:7',
      'service.note': 'MX.EXAMPLE runs Foo',
      'service.protocol': 'smtp',
    });
    // Recog raises on an unresolvable interpolation; the param is left out instead.
    expect(matcher.match('smtp.banner', 'Bar')?.params).toEqual({
      'service.cpe23': 'cpe:/a:bar:bar:-',
      'service.protocol': 'smtp',
    });
    expect(matcher.match('ssh.banner', 'Bar')).toBeNull();
    expect(matcher.match('smtp.banner', 'Baz')).toBeNull();
  });

  it('refuses what is not a Recog database, naming the file and the reason', () => {
    const refusal = (xml: string): string => {
      try {
        parseRecogDatabase('bad.xml', xml);
      } catch (error) {
        if (error instanceof MalformedRecogDatabase) return error.message;
        throw error;
      }
      throw new Error('accepted');
    };
    expect(refusal('<fingerprints><fingerprint pattern="x"></fingerprints>')).toMatch(
      /^bad\.xml: not well-formed XML/,
    );
    expect(refusal('<catalogue/>')).toBe('bad.xml: no <fingerprints> root element (not a Recog database)');
    expect(refusal('<fingerprints><fingerprint pattern="x"/></fingerprints>')).toBe(
      'bad.xml: <fingerprints> has no matches= attribute',
    );
    expect(refusal('<fingerprints matches="a"><fingerprint/></fingerprints>')).toBe(
      'bad.xml: fingerprint #1 has no pattern= attribute',
    );
    expect(
      refusal(
        '<fingerprints matches="a"><fingerprint pattern="x"><param pos="-1" name="n"/></fingerprint></fingerprints>',
      ),
    ).toBe('bad.xml: fingerprint #1 param n has pos="-1"');
  });
});
