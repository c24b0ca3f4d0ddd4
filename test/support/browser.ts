import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { CommandBus } from '@nestjs/cqrs';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { PurchaseCredits, RegisterAccount } from '../../src/accounts/commands/account.commands.js';
import type { PlanId } from '../../src/accounts/domain/plans.js';
import { commandEnvelope } from '../../src/platform/event-sourcing/command-metadata.js';
import type { TestDatabaseKind } from './databases.js';
import { TestDnsServer } from './dns-server.js';
import { startTestService, type TestService } from './service.js';
import { waitUntil } from './storage.js';

/**
 * Browser journeys (issue 19): Debian's Chromium driven by playwright-core against the real service listening
 * on real storage, serving the built console (dist/console; `npm test` builds it). Each journey saves its
 * screenshots under dist/test-output/console/<journey>/.
 */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];
export const SCREENSHOTS = join(process.cwd(), 'dist', 'test-output', 'console');
export const JOURNEY_PASSWORD = 'console-journey-password-0123';

export interface ConsoleService {
  readonly service: TestService;
  /** http://127.0.0.1:<port>: a secure context for Chromium, so the __Host- cookies work. */
  readonly origin: string;
  dispose(): Promise<void>;
}

export async function startConsoleService(
  kind: TestDatabaseKind = 'postgres',
  options: Parameters<typeof startTestService>[1] = {},
): Promise<ConsoleService> {
  const service = await startTestService(kind, options);
  await service.app.listen(0, '127.0.0.1');
  const address = service.app.getHttpServer().address() as { port: number };
  return { service, origin: `http://127.0.0.1:${address.port}`, dispose: () => service.dispose() };
}

export async function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_FLAGS });
}

/** One person's browser: its own cookies, a desktop (1280 px) or phone (390 px) viewport. */
export async function personBrowser(
  browser: Browser,
  viewport: 'desktop' | 'phone' = 'desktop',
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({
    viewport: viewport === 'desktop' ? { width: 1280, height: 860 } : { width: 390, height: 844 },
  });
  const page = await context.newPage();
  return { context, page };
}

/** Saves numbered screenshots of one journey: dist/test-output/console/<journey>/<NN>-<step>.png. */
export class Screenshots {
  private count = 0;
  readonly folder: string;

  constructor(journey: string) {
    this.folder = join(SCREENSHOTS, journey);
    mkdirSync(this.folder, { recursive: true });
  }

  async take(page: Page, step: string): Promise<string> {
    const path = join(this.folder, `${String(++this.count).padStart(2, '0')}-${step}.png`);
    await page.screenshot({ path, fullPage: true });
    return path;
  }
}

function operator() {
  return commandEnvelope({ actor: 'operator:console-journey', payer: 'system' });
}

let accounts = 0;

/** A person with a password (and purchased credits when asked), registered through the real commands. */
export async function registerPerson(
  service: TestService,
  label: string,
  options: { plan?: PlanId; purchasedCredits?: number } = {},
): Promise<{ accountId: string; email: string; password: string }> {
  const bus = service.app.get(CommandBus);
  const email = `${label}-${++accounts}-${Date.now().toString(36)}@journey.example`;
  const { accountId } = await bus.execute(
    new RegisterAccount(email, options.plan ?? 'professional', JOURNEY_PASSWORD, operator()),
  );
  if (options.purchasedCredits)
    await bus.execute(new PurchaseCredits(accountId, options.purchasedCredits, operator()));
  return { accountId, email, password: JOURNEY_PASSWORD };
}

/** Signs in through the console's own sign-in page, as a person would. */
export async function signIn(page: Page, origin: string, email: string, password: string): Promise<void> {
  await page.goto(`${origin}/`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
}

/**
 * The stage of an organization journey: a DNS server answering the domain proofs of trials, the service
 * resolving through it, Chromium, and every projection live.
 */
export async function startOrganizationStage(): Promise<{
  dns: TestDnsServer;
  running: ConsoleService;
  browser: Browser;
}> {
  const dns = await TestDnsServer.start();
  const [running, browser] = await Promise.all([
    startConsoleService('postgres', { env: { DNS_SERVERS: dns.address, DNS_TIMEOUT_MS: '2000' } }),
    launchChromium(),
  ]);
  await waitUntil(() => running.service.context.projections.allLive());
  return { dns, running, browser };
}
