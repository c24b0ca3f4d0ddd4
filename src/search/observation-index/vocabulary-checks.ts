/**
 * Checks of a query against the dataset's vocabulary that every adapter makes the same way (422
 * invalid_query).
 */
import { type Dataset, type FieldDefinition, fieldNamed, isDataset } from '../domain/datasets.js';
import { type Match, type QueryNode, QuerySyntaxError } from '../query-language/ast.js';

export type SelectorNode = Extract<QueryNode, { kind: 'selector' }>;

export function assertDataset(dataset: unknown): asserts dataset is Dataset {
  if (!isDataset(dataset)) throw new Error(`unknown dataset ${JSON.stringify(dataset)}`);
}

/** Match kinds each field type accepts. Anything else is a 422 invalid_query. */
export const MATCH_KINDS_BY_TYPE: Readonly<Record<FieldDefinition['type'], readonly Match['kind'][]>> = {
  keyword: ['exact', 'prefix', 'suffix', 'contains'],
  text: ['exact', 'prefix', 'suffix', 'contains'],
  integer: ['exact', 'range'],
  date: ['exact', 'range'],
  ip: ['exact', 'cidr'],
  boolean: ['exact'],
};

/** The field of a `field` node, checked against the dataset and the match kind. */
export function searchableField(
  dataset: Dataset,
  node: Extract<QueryNode, { kind: 'field' }>,
): FieldDefinition {
  const field = fieldNamed(node.field);
  if (!field || !field.datasets.includes(dataset)) {
    throw new QuerySyntaxError(`field ${node.field} does not apply to ${dataset}`, node.span.start);
  }
  if (!MATCH_KINDS_BY_TYPE[field.type].includes(node.match.kind)) {
    throw new QuerySyntaxError(
      `${node.field} is a ${field.type} field: ${node.match.kind} matches do not apply`,
      node.span.start,
    );
  }
  return field;
}

/** What a node other than and/or/not/field/selector means here: `none` is invalid_query, `bare` a caller bug. */
export function unsearchableNode(node: Extract<QueryNode, { kind: 'none' | 'bare' }>): Error {
  if (node.kind === 'none') return new QuerySyntaxError(node.reason, node.span.start);
  return new Error('bare input reached the observation index: interpret the query before searching');
}

/** Selectors are attributes of host observations only. */
export function assertSelectorApplies(dataset: Dataset, node: SelectorNode): void {
  if (dataset !== 'hosts') {
    throw new QuerySyntaxError(
      `${node.selector}: selectors apply to hosts observations only`,
      node.span.start,
    );
  }
}

/** The aggregatable field named `name` in the dataset. */
export function aggregatableField(dataset: Dataset, name: string): FieldDefinition {
  const field = fieldNamed(name);
  if (!field || !field.datasets.includes(dataset))
    throw new Error(`field ${name} does not apply to ${dataset}`);
  if (!field.aggregatable) throw new Error(`field ${name} is not aggregatable`);
  return field;
}
