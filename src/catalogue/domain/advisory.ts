/**
 * The catalogue's records, reduced from NVD CVE API 2.0 objects and the CISA KEV catalogue to what matching and
 * enrichment need. The catalogue is imported, not event-sourced (ARCHITECTURE: read models).
 */
export interface CpeCriterion {
  readonly vulnerable: boolean;
  readonly criteria: string;
  readonly versionStartIncluding?: string;
  readonly versionStartExcluding?: string;
  readonly versionEndIncluding?: string;
  readonly versionEndExcluding?: string;
}

export interface ConfigurationNode {
  readonly operator: 'AND' | 'OR';
  readonly negate: boolean;
  readonly cpeMatch: readonly CpeCriterion[];
}

export interface Configuration {
  readonly operator: 'AND' | 'OR';
  readonly negate: boolean;
  readonly nodes: readonly ConfigurationNode[];
}

export interface Cvss {
  readonly version: string;
  readonly base_score: number;
  readonly base_severity: string;
  readonly vector_string: string;
}

export interface Advisory {
  readonly id: string;
  readonly published: string | null;
  readonly last_modified: string | null;
  readonly vuln_status: string | null;
  readonly description: string | null;
  readonly cvss: Cvss | null;
  readonly cwe: readonly string[];
  readonly configurations: readonly Configuration[];
}

export interface KevEntry {
  readonly cve_id: string;
  readonly vendor_project: string | null;
  readonly product: string | null;
  readonly vulnerability_name: string | null;
  readonly date_added: string | null;
  readonly due_date: string | null;
  readonly short_description: string | null;
  readonly required_action: string | null;
  readonly known_ransomware_campaign_use: string | null;
  readonly notes: string | null;
}

/** Where the KEV part of the catalogue came from (null: no KEV catalogue loaded, so `kev` is unknown). */
export interface KevSource {
  readonly title: string | null;
  readonly catalog_version: string | null;
  readonly date_released: string | null;
  readonly count: number;
}

export interface CatalogueVersion {
  /** Increases with every import that changed the catalogue; 0 for an empty catalogue. */
  readonly version: number;
  /** When the catalogue in this version was established (the import that produced it). */
  readonly evaluated_at: string | null;
  readonly kev_source: KevSource | null;
  readonly advisories: number;
  readonly kev_entries: number;
}

export const EMPTY_CATALOGUE_VERSION: CatalogueVersion = {
  version: 0,
  evaluated_at: null,
  kev_source: null,
  advisories: 0,
  kev_entries: 0,
};

export const CVE_ID = /^CVE-\d{4}-\d{4,}$/;
