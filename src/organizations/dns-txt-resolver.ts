import { Resolver } from 'node:dns/promises';
import { ServiceError } from '../platform/errors/service-error.js';

/** Looks up TXT records: the port domain verification reads DNS through (real resolver; loopback in tests). */
export interface TxtResolver {
  /** Each TXT record as its list of character strings; [] when the name has none. */
  resolveTxt(name: string): Promise<string[][]>;
}

const NO_RECORD = new Set(['ENODATA', 'ENOTFOUND', 'NXDOMAIN']);

/** node:dns Resolver with the configured servers (DNS_SERVERS) or the system's. */
export class DnsTxtResolver implements TxtResolver {
  private readonly resolver: Resolver;

  constructor(options: { readonly servers?: readonly string[]; readonly timeoutMs: number }) {
    this.resolver = new Resolver({ timeout: options.timeoutMs, tries: 2 });
    if (options.servers && options.servers.length > 0) this.resolver.setServers([...options.servers]);
  }

  async resolveTxt(name: string): Promise<string[][]> {
    try {
      return await this.resolver.resolveTxt(name);
    } catch (error) {
      const code = (error as { code?: string }).code ?? '';
      if (NO_RECORD.has(code)) return [];
      throw new ServiceError('lookup_unavailable', 'the DNS lookup failed; try again shortly', { dns: code });
    }
  }
}

/** The DNS lookup the domain verification uses (a test server in tests). */
export const TXT_RESOLVER = Symbol('TxtResolver');
