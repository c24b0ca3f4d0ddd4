/**
 * An in-process OpenID Connect provider (oidc-provider, its development sign-in pages) on a loopback port, and a
 * small browser for tests: it keeps cookies per host and follows redirects one at a time over real HTTP, so a
 * test sees every hop of an authorization code flow.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

export interface ProviderUser {
  readonly email: string;
  readonly emailVerified?: boolean;
}

export interface TestProvider {
  readonly issuer: string;
  /** Users by subject; the development sign-in page takes the subject as its login. */
  readonly users: Map<string, ProviderUser>;
  close(): Promise<void>;
}

export interface TestClient {
  readonly clientId: string;
  readonly clientSecret: string;
  readonly redirectUris: readonly string[];
}

export async function startTestProvider(clients: readonly TestClient[]): Promise<TestProvider> {
  const users = new Map<string, ProviderUser>();
  const late: { handler?: (req: never, res: never) => void } = {};
  const server: Server = createServer((req, res) => late.handler!(req as never, res as never));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const provider = new Provider(issuer, {
    clients: clients.map((client) => ({
      client_id: client.clientId,
      client_secret: client.clientSecret,
      redirect_uris: [...client.redirectUris],
      grant_types: ['authorization_code'],
      response_types: ['code'],
    })),
    claims: { openid: ['sub'], email: ['email', 'email_verified'] },
    pkce: { required: () => true },
    ttl: {
      AccessToken: 600,
      AuthorizationCode: 60,
      Grant: 600,
      IdToken: 600,
      Interaction: 600,
      Session: 600,
    },
    cookies: { keys: ['test-provider-cookie-key-0123456789'] },
    features: { devInteractions: { enabled: true } },
    async findAccount(_ctx, sub) {
      const user = users.get(sub);
      if (!user) return undefined;
      return {
        accountId: sub,
        claims: async () => ({ sub, email: user.email, email_verified: user.emailVerified ?? true }),
      };
    },
  });
  // The development pages warn once on the console; the tests know they use them.
  provider.on('server_error', () => undefined);
  late.handler = provider.callback() as unknown as typeof late.handler;
  return {
    issuer,
    users,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface BrowserResponse {
  readonly status: number;
  readonly url: string;
  readonly location: string | null;
  readonly body: string;
  readonly setCookies: readonly string[];
}

/** Cookies per host (the test services all live on 127.0.0.1 ports: the port is part of the key). */
export class TestBrowser {
  readonly jars = new Map<string, Map<string, string>>();

  cookies(url: string): Map<string, string> {
    const host = new URL(url).host;
    let jar = this.jars.get(host);
    if (!jar) this.jars.set(host, (jar = new Map()));
    return jar;
  }

  async request(
    url: string,
    init: {
      method?: string;
      form?: Record<string, string>;
      json?: unknown;
      headers?: Record<string, string>;
    } = {},
  ): Promise<BrowserResponse> {
    const jar = this.cookies(url);
    const headers: Record<string, string> = { ...init.headers };
    if (jar.size > 0) headers.cookie = [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
    let body: string | undefined;
    if (init.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(init.form).toString();
    } else if (init.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(init.json);
    }
    const response = await fetch(url, {
      method: init.method ?? (body === undefined ? 'GET' : 'POST'),
      headers,
      ...(body === undefined ? {} : { body }),
      redirect: 'manual',
    });
    const setCookies = response.headers.getSetCookie();
    for (const cookie of setCookies) {
      const [pair = ''] = cookie.split(';');
      const at = pair.indexOf('=');
      const name = pair.slice(0, at).trim();
      const value = pair.slice(at + 1).trim();
      if (/max-age=0/i.test(cookie) || value === '') jar.delete(name);
      else jar.set(name, value);
    }
    const location = response.headers.get('location');
    return {
      status: response.status,
      url,
      location: location === null ? null : new URL(location, url).href,
      body: await response.text(),
      setCookies,
    };
  }

  /** Follows redirects until a response that is not one, or until `stop` says so; answers every hop. */
  async follow(
    url: string,
    stop: (hop: BrowserResponse) => boolean = () => false,
  ): Promise<BrowserResponse[]> {
    const hops: BrowserResponse[] = [];
    let next: string | null = url;
    for (let i = 0; next !== null && i < 20; i++) {
      const hop: BrowserResponse = await this.request(next);
      hops.push(hop);
      if (stop(hop) || hop.status < 300 || hop.status >= 400) break;
      next = hop.location;
    }
    return hops;
  }
}

/**
 * Drives the provider's development sign-in from its interaction page: login as `subject`, then consent.
 * Answers the URL the provider finally redirects to (the client's redirect URI with code and state), without
 * visiting it.
 */
export async function signInAtProvider(
  browser: TestBrowser,
  authorizationUrl: string,
  subject: string,
  redirectPrefix: string,
): Promise<string> {
  // Compared as URLs print themselves (a default port disappears: http://localhost:80 is http://localhost).
  redirectPrefix = new URL(redirectPrefix).href;
  let url = authorizationUrl;
  for (let step = 0; step < 10; step++) {
    const hops = await browser.follow(url, (hop) => hop.location?.startsWith(redirectPrefix) ?? false);
    const last = hops.at(-1)!;
    if (last.location?.startsWith(redirectPrefix)) return last.location;
    if (last.status !== 200) throw new Error(`provider answered ${last.status}: ${last.body.slice(0, 300)}`);
    const prompt =
      /name="prompt" value="(\w+)"/.exec(last.body)?.[1] ??
      (/name="login"/.test(last.body) ? 'login' : 'consent');
    const form: Record<string, string> =
      prompt === 'login' ? { prompt: 'login', login: subject, password: 'any' } : { prompt: 'consent' };
    const submitted = await browser.request(last.url, { form });
    if (!submitted.location)
      throw new Error(`the provider's ${prompt} form did not redirect: ${submitted.status}`);
    if (submitted.location.startsWith(redirectPrefix)) return submitted.location;
    url = submitted.location;
  }
  throw new Error('the provider sign-in did not finish');
}
