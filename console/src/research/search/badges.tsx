import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import type { components } from '../../api/schema';
import { ErrorView } from '../../app/error-view';
import type { Dataset, ResultItem } from './search-state';

type BadgeAnswer = components['schemas']['BadgeEnrichment'];
export type BadgedItem = BadgeAnswer['items'][number];
type BadgeRequestItem = { key: string; type: BadgedItem['type']; value: string };

/** The contract's limit for one batch. */
const MAX_ITEMS = 50;

/** What a result item is, for badge enrichment: a host's address, a DNS name, a certificate, a domain. */
function badgeItemOf(item: ResultItem): BadgeRequestItem | null {
  const raw = item.raw as Record<string, unknown>;
  const text = (value: unknown) => (typeof value === 'string' && value ? value : null);
  const key = badgeKey(item);
  const pick: Record<Dataset, () => BadgeRequestItem | null> = {
    hosts: () => (text(raw.ip) ? { key, type: 'host', value: text(raw.ip)! } : null),
    dns: () => (text(raw.name) ? { key, type: 'dns', value: text(raw.name)! } : null),
    vhosts: () => (text(raw.fingerprint) ? { key, type: 'cert', value: text(raw.fingerprint)! } : null),
    whois: () => (text(raw.domain) ? { key, type: 'whois', value: text(raw.domain)! } : null),
  };
  return pick[item.dataset]();
}

export const badgeKey = (item: ResultItem) => `${item.dataset}:${item.id}`;

/**
 * Badges for a set of result items (POST /api/v2/data/enrich/badges, free), one batch of at most 50: one request
 * per answer, so the contract's two concurrent batches per account are not exceeded by the page itself.
 */
export function useBadges(items: readonly ResultItem[], enabled: boolean) {
  const request = [
    ...new Map(
      items.flatMap((item) => {
        const entry = badgeItemOf(item);
        return entry ? [[entry.key, entry] as const] : [];
      }),
    ).values(),
  ].slice(0, MAX_ITEMS);
  return useQuery({
    queryKey: ['badges', request.map((entry) => entry.key)],
    queryFn: async () => {
      const answer = await unwrap(api.POST('/api/v2/data/enrich/badges', { body: { items: request } }));
      return new Map(answer.items.map((entry) => [entry.key, entry]));
    },
    enabled: enabled && request.length > 0,
    staleTime: Infinity,
  });
}

/**
 * One item's badges. A badge's related search starts only when the person clicks it; "unavailable" never reads
 * as "no badges".
 */
export function Badges({
  badged,
  pending,
  onRelatedSearch,
}: {
  badged: BadgedItem | undefined;
  pending: boolean;
  onRelatedSearch: (query: string) => void;
}) {
  if (pending) return <span className="muted">…</span>;
  if (!badged) return <span className="muted">—</span>;
  if (badged.status === 'unavailable') return <span className="unavailable">badges unavailable</span>;
  if (badged.badges.length === 0) return <span className="muted">none</span>;
  return (
    <ul className="badges">
      {badged.badges.map((badge) => (
        <li key={badge.id} className={`badge badge-${badge.level}`}>
          <span>{badge.label}</span>
          {badge.search ? (
            <button
              type="button"
              className="link related"
              title={`Search ${badge.search.query}`}
              onClick={() => onRelatedSearch(badge.search!.query)}
            >
              related search
            </button>
          ) : null}
        </li>
      ))}
    </ul>
  );
}

export function BadgesError({ error }: { error: unknown }) {
  return <ErrorView error={error} title="Badges could not be added" />;
}
