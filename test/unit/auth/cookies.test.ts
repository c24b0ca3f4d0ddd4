import { describe, expect, it } from '@jest/globals';
import {
  clearedSessionCookies,
  CSRF_COOKIE,
  parseCookies,
  SESSION_COOKIE,
  sessionCookies,
} from '../../../src/platform/auth/cookies.js';

const attributes = (cookie: string): string[] =>
  cookie
    .split(';')
    .slice(1)
    .map((part) => part.trim());

describe('session cookies', () => {
  const sessionId = 'S'.repeat(43);
  const csrf = 'c_-'.repeat(14) + 'c';

  it('set __Host-ps and __Host-pc with exact attributes', () => {
    const [session, token, ...rest] = sessionCookies(sessionId, csrf, 43_200);
    expect(rest).toEqual([]);
    expect(SESSION_COOKIE).toBe('__Host-ps');
    expect(CSRF_COOKIE).toBe('__Host-pc');
    expect(session).toBe(`__Host-ps=${sessionId}; Path=/; Max-Age=43200; HttpOnly; Secure; SameSite=Strict`);
    expect(token).toBe(`__Host-pc=${csrf}; Path=/; Max-Age=43200; Secure; SameSite=Strict`);
    for (const cookie of [session, token] as string[]) {
      expect(attributes(cookie)).toEqual(
        expect.arrayContaining(['Path=/', 'Secure', 'SameSite=Strict', 'Max-Age=43200']),
      );
      expect(cookie.toLowerCase()).not.toContain('domain');
      expect(cookie.toLowerCase()).not.toContain('expires');
    }
    expect(attributes(session as string)).toContain('HttpOnly');
    expect(attributes(token as string)).not.toContain('HttpOnly');
  });

  it('refuses values that could inject attributes, and bad lifetimes', () => {
    expect(() => sessionCookies('abc; Domain=evil.example', csrf, 60)).toThrow();
    expect(() => sessionCookies(sessionId, 'a\r\nSet-Cookie: x=y', 60)).toThrow();
    expect(() => sessionCookies(sessionId, csrf, 0)).toThrow();
    expect(() => sessionCookies(sessionId, csrf, 1.5)).toThrow();
  });

  it('clear both cookies with Max-Age=0 and the same attributes', () => {
    expect(clearedSessionCookies()).toEqual([
      '__Host-ps=; Path=/; Max-Age=0; HttpOnly; Secure; SameSite=Strict',
      '__Host-pc=; Path=/; Max-Age=0; Secure; SameSite=Strict',
    ]);
  });
});

describe('parseCookies', () => {
  it('reads pairs, trims, unquotes and decodes', () => {
    expect(parseCookies('__Host-ps=abc; __Host-pc=def;theme="dark mode" ; x=a%20b')).toEqual({
      '__Host-ps': 'abc',
      '__Host-pc': 'def',
      theme: 'dark mode',
      x: 'a b',
    });
    expect(parseCookies('a=b=c')).toEqual({ a: 'b=c' });
    expect(parseCookies('a=')).toEqual({ a: '' });
  });

  it('keeps the first of duplicate names', () => {
    expect(parseCookies('__Host-ps=first; __Host-ps=second')).toEqual({ '__Host-ps': 'first' });
  });

  it('never throws on garbage', () => {
    expect(parseCookies(undefined)).toEqual({});
    expect(parseCookies(null)).toEqual({});
    expect(parseCookies('')).toEqual({});
    expect(parseCookies(';;; =x; novalue; ==; a=%E0%A4%A')).toEqual({ a: '%E0%A4%A' });
    expect(parseCookies('"="')).toEqual({ '"': '"' });
    const parsed = parseCookies('__proto__=polluted; constructor=x');
    expect(parsed['__proto__']).toBe('polluted');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(parsed)).toBeNull();
    expect(() => parseCookies('a=b; '.repeat(10_000))).not.toThrow();
  });
});
