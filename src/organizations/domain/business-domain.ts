/**
 * Trial admission proof (rule 5): a business domain proven by a DNS TXT record the service names. Pure: the
 * resolver answers are passed in; the personal mailbox list is the maintained `email-providers` package, the
 * public suffix list the maintained `tldts` package (its list is bundled: nothing is fetched at run time).
 */
import { createRequire } from 'node:module';
import { getDomain } from 'tldts';
import { ServiceError } from '../../platform/errors/service-error.js';

const require = createRequire(import.meta.url);
/** Free and personal mailbox providers (gmail.com, outlook.fr, proton.me, …). */
const PERSONAL_MAILBOX_DOMAINS: ReadonlySet<string> = new Set(
  (require('email-providers/all.json') as string[]).map((domain) => domain.toLowerCase()),
);

export const VERIFICATION_RECORD_PREFIX = '_exposure-verification';
export const VERIFICATION_VALUE_PREFIX = 'exposure-verification=';

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/** Lowercased, trailing dot removed; refuses anything that is not a registrable-looking host name. */
export function normalizeBusinessDomain(raw: unknown): string {
  const domain = typeof raw === 'string' ? raw.trim().toLowerCase().replace(/\.$/, '') : '';
  const labels = domain.split('.');
  if (
    domain.length === 0 ||
    domain.length > 253 ||
    labels.length < 2 ||
    !labels.every((l) => LABEL.test(l))
  ) {
    throw new ServiceError('invalid_input', 'domain must be a domain name such as example.com', {
      fields: [{ field: 'domain', problems: ['must be a domain name such as example.com'] }],
    });
  }
  if (/^\d+$/.test(labels.at(-1)!)) {
    throw new ServiceError('invalid_input', 'domain must be a domain name, not an address', {
      fields: [{ field: 'domain', problems: ['must be a domain name, not an address'] }],
    });
  }
  return domain;
}

/** True for a personal mailbox provider or any subdomain of one. */
export function isPersonalMailboxDomain(domain: string): boolean {
  const labels = domain.toLowerCase().split('.');
  for (let i = 0; i < labels.length - 1; i++) {
    if (PERSONAL_MAILBOX_DOMAINS.has(labels.slice(i).join('.'))) return true;
  }
  return false;
}

/**
 * The registrable domain (public suffix plus one label) a trial is granted once for (rule 5): `a.b.example.co.uk`
 * → `example.co.uk`. The private section of the list counts (`acme.github.io` is its owner's own), so different
 * registrants under a shared hosting suffix are different domains. Null for a public suffix itself.
 */
export function registrableDomain(domain: string): string | null {
  return getDomain(domain, { allowPrivateDomains: true, validateHostname: false }) ?? null;
}

/** A business domain: well-formed, registrable and not a personal mailbox domain (422 personal_mailbox_domain). */
export function requireBusinessDomain(raw: unknown): string {
  const domain = normalizeBusinessDomain(raw);
  if (isPersonalMailboxDomain(domain)) {
    throw new ServiceError(
      'personal_mailbox_domain',
      `${domain} is a personal mailbox domain; a trial needs your organization's own domain`,
      { domain },
    );
  }
  if (registrableDomain(domain) === null) {
    throw new ServiceError(
      'invalid_input',
      `${domain} is a public suffix; name your organization's own domain`,
      {
        fields: [{ field: 'domain', problems: ['is a public suffix, not a registrable domain'] }],
      },
    );
  }
  return domain;
}

export interface VerificationRecord {
  readonly type: 'TXT';
  readonly name: string;
  readonly value: string;
}

export function verificationRecord(domain: string, token: string): VerificationRecord {
  return {
    type: 'TXT',
    name: `${VERIFICATION_RECORD_PREFIX}.${domain}`,
    value: `${VERIFICATION_VALUE_PREFIX}${token}`,
  };
}

/** Whether the TXT strings found at the record's name hold the expected value (chunks of one record joined). */
export function txtProves(found: ReadonlyArray<readonly string[]>, expected: VerificationRecord): boolean {
  return found.some((chunks) => chunks.join('').trim() === expected.value);
}
