import { useQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { api, unwrap } from '../../api/client';
import type { components } from '../../api/schema';

export type SearchFields = components['schemas']['SearchFields'];

/** The searchable vocabulary and the prices, as the service answers them (free). */
export function useSearchFields() {
  return useQuery({
    queryKey: ['search-fields'],
    queryFn: () => unwrap(api.GET('/api/v2/data/search/fields')),
    staleTime: Infinity,
  });
}

const credits = (amount: number) => `${amount} credit${amount === 1 ? '' : 's'}`;

/** Prices per dataset, from the vocabulary's answer: the console states them, it does not compute them. */
export function PriceList({ prices }: { prices: SearchFields['prices'] }) {
  return (
    <p className="muted price-list">
      First page prices:{' '}
      {Object.entries(prices)
        .map(([name, amount]) => `${name.replace('_', ' ')} ${credits(amount)}`)
        .join(' · ')}
      . A unified search costs the highest price among the datasets that returned rows; a dataset that did not
      answer is never charged.
    </p>
  );
}

/** The fields vocabulary as inline help next to the query box, with a filter. */
export function FieldsHelp({ fields }: { fields: SearchFields }) {
  const [filter, setFilter] = useState('');
  const filterId = useId();
  const wanted = filter.trim().toLowerCase();
  const shown = fields.fields.filter(
    (field) =>
      !wanted ||
      field.name.toLowerCase().includes(wanted) ||
      field.description.toLowerCase().includes(wanted),
  );
  return (
    <details className="fields-help">
      <summary>Fields you can search ({fields.fields.length})</summary>
      <label htmlFor={filterId} className="inline-label">
        Filter fields
        <input
          id={filterId}
          type="search"
          value={filter}
          onChange={(event) => setFilter(event.target.value)}
        />
      </label>
      <div className="table-scroll">
        <table>
          <caption className="muted">
            Write <code>field:value</code>; combine with AND, OR, NOT and parentheses.
          </caption>
          <thead>
            <tr>
              <th scope="col">Field</th>
              <th scope="col">Type</th>
              <th scope="col">Datasets</th>
              <th scope="col">Description</th>
              <th scope="col">Needs</th>
            </tr>
          </thead>
          <tbody>
            {shown.map((field) => (
              <tr key={field.name}>
                <td>
                  <code>{field.name}</code>
                </td>
                <td>
                  {field.type}
                  {field.multiple ? ' (several values)' : ''}
                </td>
                <td>{field.datasets.join(', ')}</td>
                <td>{field.description}</td>
                <td>{field.entitlement ? <span>the {field.entitlement} entitlement</span> : '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </details>
  );
}
