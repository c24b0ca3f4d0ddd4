/**
 * Issue 19: the console is served by the service itself at `/`, signs a person in with the contract's session
 * and CSRF cookies, and shows a refusal with its message and code. A real Chromium against the listening service
 * on the PostgreSQL server.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser } from 'playwright-core';
import {
  launchChromium,
  personBrowser,
  registerPerson,
  Screenshots,
  signIn,
  startConsoleService,
  type ConsoleService,
} from '../../support/browser.js';

describe('web console shell', () => {
  let running: ConsoleService;
  let browser: Browser;
  const shots = new Screenshots('shell');

  beforeAll(async () => {
    [running, browser] = await Promise.all([startConsoleService('postgres'), launchChromium()]);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await running?.dispose();
  });

  it('serves the built console at / and its pages, cached by content, with a strict content policy', async () => {
    const page = await fetch(`${running.origin}/search`, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(page.headers.get('cache-control')).toBe('no-cache');
    const html = await page.text();
    const script = /src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    const asset = await fetch(`${running.origin}${script}`, { headers: { 'accept-encoding': 'gzip' } });
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(asset.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    // The API keeps its own answers: an unknown API path is the service's JSON refusal, not the console.
    const unknown = await fetch(`${running.origin}/api/v2/no-such-route`, {
      headers: { accept: 'text/html' },
    });
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { code: string }).code).toBe('not_found');
    // A missing asset is a 404 too, never the console page in its place.
    expect((await fetch(`${running.origin}/assets/missing.js`)).status).toBe(404);
  });

  it('signs a person in with the session cookies, refuses a wrong password with its code, and signs out', async () => {
    const person = await registerPerson(running.service, 'shell', { purchasedCredits: 50 });
    const { context, page } = await personBrowser(browser);
    try {
      await page.goto(`${running.origin}/credits`);
      await page.getByRole('heading', { name: 'Sign in' }).waitFor();
      await page.getByLabel('Email').fill(person.email);
      await page.getByLabel('Password').fill('not-the-password-at-all');
      await page.getByRole('button', { name: 'Sign in' }).click();
      const refusal = page.getByRole('alert');
      await refusal.waitFor();
      expect(await refusal.getAttribute('data-code')).toBe('unauthenticated');
      await shots.take(page, 'sign-in-refused');

      await signIn(page, running.origin, person.email, person.password);
      const cookies = await context.cookies(running.origin);
      const session = cookies.find((cookie) => cookie.name === '__Host-ps');
      const csrf = cookies.find((cookie) => cookie.name === '__Host-pc');
      expect(session).toMatchObject({ httpOnly: true, secure: true, sameSite: 'Strict', path: '/' });
      expect(csrf).toMatchObject({ httpOnly: false, secure: true, path: '/' });
      expect(await page.getByText(person.email).isVisible()).toBe(true);
      await shots.take(page, 'signed-in');

      // A CSRF token that no longer matches the session: the unsafe request is refused, nothing happens, and the
      // console says so with the code and a way out (signing in again issues a matching pair).
      await page.evaluate(() => {
        document.cookie = '__Host-pc=tampered; Path=/; Secure; SameSite=Strict';
      });
      expect((await context.cookies(running.origin)).find((c) => c.name === '__Host-pc')?.value).toBe(
        'tampered',
      );
      await page.getByRole('button', { name: 'Sign out' }).click();
      const csrfRefusal = page.getByRole('alert');
      await csrfRefusal.waitFor();
      expect(await csrfRefusal.getAttribute('data-code')).toBe('csrf_failed');
      expect(await page.getByText(person.email).isVisible()).toBe(true); // still signed in: nothing was done
      await shots.take(page, 'csrf-refused');
      await page.getByRole('link', { name: 'Sign in again' }).click();
      // By keyboard alone: Tab reaches the labelled fields in order, Enter submits.
      await page.getByRole('heading', { name: 'Sign in' }).waitFor();
      await page.keyboard.press('Tab');
      expect(await page.evaluate(() => document.activeElement?.getAttribute('type'))).toBe('email');
      await page.keyboard.type(person.email);
      await page.keyboard.press('Tab');
      expect(await page.evaluate(() => document.activeElement?.getAttribute('type'))).toBe('password');
      await page.keyboard.type(person.password);
      await page.keyboard.press('Enter');
      await page.getByRole('button', { name: 'Sign out' }).waitFor();
      await page.waitForURL(`${running.origin}/search`); // home for an account of no organization

      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByRole('heading', { name: 'Sign in' }).waitFor();
      const after = await context.cookies(running.origin);
      expect(after.find((cookie) => cookie.name === '__Host-ps')).toBeUndefined();
    } finally {
      await context.close();
    }
  });

  it('is usable at phone width: the navigation wraps and nothing scrolls sideways', async () => {
    const person = await registerPerson(running.service, 'phone', { purchasedCredits: 10 });
    const { context, page } = await personBrowser(browser, 'phone');
    try {
      await signIn(page, running.origin, person.email, person.password);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow).toBeLessThanOrEqual(0);
      expect(await page.getByRole('navigation', { name: 'Main' }).isVisible()).toBe(true);
      await shots.take(page, 'phone');
    } finally {
      await context.close();
    }
  });
});
