/**
 * Gathers the evidence behind badges from the stored observations and the association index: bounded reads
 * (a few records per item, counts capped), run with a deadline so that a batch of 50 items stays cheap.
 */
import type { Dataset } from '../../search/domain/datasets.js';
import type {
  ObservationIndex,
  ObservationRecord,
} from '../../search/observation-index/observation-index.port.js';
import type { Match, QueryNode } from '../../search/query-language/ast.js';
import type { CatalogueStore } from '../store/catalogue-store.port.js';
import type { BadgeEvidence, BadgeItem } from './badges.js';

const SPAN = { start: 0, end: 0 };
const field = (name: string, match: Match): QueryNode => ({ kind: 'field', field: name, match, span: SPAN });
const exact = (name: string, value: string): QueryNode => field(name, { kind: 'exact', value });
const anyOf = (children: QueryNode[]): QueryNode => ({ kind: 'or', children, span: SPAN });

const HOSTS_PER_ITEM = 50;
const ADDRESSES_PER_NAME = 8;
/** Certificate names on an address are counted up to this (shown as context of the shared-edge badge). */
const NAMES_COUNT_LIMIT = 100;

export class BadgeEvidenceReader {
  constructor(
    private readonly observations: ObservationIndex,
    private readonly catalogue: CatalogueStore,
  ) {}

  async gather(item: BadgeItem, signal: AbortSignal): Promise<BadgeEvidence> {
    switch (item.type) {
      case 'ip':
      case 'host':
        return this.address(item.value, signal);
      case 'dns':
      case 'domain':
        return this.name(item.value.toLowerCase(), item.type === 'domain', signal);
      case 'cert':
        return {
          certificates: await this.certificates(exact('fingerprint', item.value.toUpperCase()), signal),
        };
      case 'whois':
        return { whois: await this.whois(item.value.toLowerCase(), signal) };
    }
  }

  private async records(dataset: Dataset, ast: QueryNode, limit: number, signal: AbortSignal) {
    return this.observations.search(dataset, { ast }, { offset: 0, limit, countLimit: limit }, signal);
  }

  private async cvesOfHosts(hosts: readonly ObservationRecord[]): Promise<BadgeEvidence['cves']> {
    const associations = await this.catalogue.associationsOf(hosts.map((host) => host.id));
    return [...associations.values()].flat();
  }

  private async address(ip: string, signal: AbortSignal): Promise<BadgeEvidence> {
    const hosts = await this.records('hosts', exact('ip', ip), HOSTS_PER_ITEM, signal);
    const names = await this.observations.search(
      'vhosts',
      { ast: exact('ip', ip) },
      { offset: 0, limit: 0, countLimit: NAMES_COUNT_LIMIT },
      signal,
    );
    return {
      addresses: [ip],
      cves: await this.cvesOfHosts(hosts.records),
      namesOnAddress: names.total,
      sharedEdgeHosts: hosts.records.filter((host) => host.shared_edge === true).length,
    };
  }

  private async name(name: string, withDomainRecords: boolean, signal: AbortSignal): Promise<BadgeEvidence> {
    const resolved = await this.records(
      'dns',
      {
        kind: 'and',
        children: [exact('name', name), anyOf([exact('type', 'a'), exact('type', 'aaaa')])],
        span: SPAN,
      },
      ADDRESSES_PER_NAME,
      signal,
    );
    const addresses = [
      ...new Set(
        resolved.records.map((record) => record.value).filter((v): v is string => typeof v === 'string'),
      ),
    ];
    const hosts =
      addresses.length === 0
        ? []
        : (await this.records('hosts', anyOf(addresses.map((a) => exact('ip', a))), HOSTS_PER_ITEM, signal))
            .records;
    return {
      addresses,
      cves: await this.cvesOfHosts(hosts),
      ...(withDomainRecords
        ? {
            certificates: await this.certificates(exact('names', name), signal),
            whois: await this.whois(name, signal),
          }
        : {}),
    };
  }

  private async certificates(
    ast: QueryNode,
    signal: AbortSignal,
  ): Promise<NonNullable<BadgeEvidence['certificates']>> {
    const page = await this.records('vhosts', ast, 5, signal);
    return page.records.map((record) => ({
      fingerprint: String(record.fingerprint ?? record.id),
      not_after: typeof record.not_after === 'string' ? record.not_after : null,
      self_signed: typeof record.self_signed === 'boolean' ? record.self_signed : null,
    }));
  }

  private async whois(domain: string, signal: AbortSignal): Promise<BadgeEvidence['whois']> {
    const page = await this.records('whois', exact('domain', domain), 1, signal);
    const record = page.records[0];
    if (!record) return null;
    return {
      domain: typeof record.domain === 'string' ? record.domain : domain,
      created: typeof record.created === 'string' ? record.created : null,
      expires: typeof record.expires === 'string' ? record.expires : null,
    };
  }
}
