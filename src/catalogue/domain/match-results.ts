/**
 * What matching answers: findings, their additional conditions and the evaluation of an observation.
 */
import type { Advisory, KevEntry } from './advisory.js';
import type { CpeAttribute } from './cpe.js';

export interface ObservedProduct {
  readonly vendor: string | null;
  readonly product: string | null;
  readonly version: string | null;
}

export interface AdditionalCondition {
  /** How the criteria combine: one of them (OR) or all of them (AND) must also be present. */
  readonly operator: 'AND' | 'OR';
  readonly criteria: readonly string[];
  readonly note: string;
  /**
   * Present when the condition is on the observed software itself: the CPE attributes the observation does not
   * tell (one of `criteria` must match the software once they are known). Absent for platform conditions.
   */
  readonly unknown_attributes?: readonly CpeAttribute[];
}

export interface Finding {
  readonly id: string;
  readonly description: string | null;
  readonly published: string | null;
  readonly last_modified: string | null;
  readonly vuln_status: string | null;
  readonly cvss: Advisory['cvss'];
  readonly severity: string | null;
  readonly cwe: readonly string[];
  /** The KEV entry; false only when a KEV catalogue is loaded and does not list the CVE; null when unknown. */
  readonly kev: KevEntry | false | null;
  readonly additional_conditions: readonly AdditionalCondition[];
  readonly observed_products: readonly ObservedProduct[];
  readonly matched_criteria: readonly string[];
}

export type EvaluationStatus = 'matched' | 'no_match' | 'indeterminate';

/** `update_unknown`, `sw_edition_unknown`, …: the outcome hangs on that attribute, which the observation lacks. */
export type AttributeUnknownReason = `${Exclude<CpeAttribute, 'version'>}_unknown`;

export type EvaluationReason =
  | 'matched'
  | 'no_applicable_advisory'
  | 'product_not_in_catalogue'
  | 'version_unknown'
  | AttributeUnknownReason
  | 'additional_conditions'
  | 'no_cpe'
  | 'invalid_cpe'
  | 'catalogue_empty';

export interface Evaluation {
  readonly status: EvaluationStatus;
  /** Every advisory naming the product was decided (true / false). Only a complete no_match is a negative. */
  readonly complete: boolean;
  readonly reason: EvaluationReason;
  /** What was evaluated: a software observation (reference) or caller-supplied CPE names. */
  readonly source: 'observation' | 'cpe';
  readonly total: number;
  readonly findings: readonly Finding[];
  /** The CPE evaluated; empty for reference-based calls. */
  readonly cpe: string;
  /**
   * Advisories that could not be decided because the observation does not tell an attribute of the software (its
   * version, update, edition, …). Those undecided on an attribute other than the version are also findings,
   * their condition in `additional_conditions`.
   */
  readonly undetermined: readonly string[];
  /** The CPE attributes the undecided advisories hang on, in CPE order (empty when everything was decided). */
  readonly unknown_attributes: readonly CpeAttribute[];
}

/** A software identity of an observation, as sealed in a vulnerability_ref. */
export interface SoftwareObservation {
  readonly vendor: string | null;
  readonly product: string | null;
  readonly version: string | null;
  readonly cpe: readonly string[];
}
