import type { Dataset } from '../../domain/datasets.js';

/**
 * What every collector importer shares (issue 17): a collector's output item (a line, or a whole file) becomes
 * records of the service's datasets, in the same shape as an NDJSON line of that dataset, so that one gate
 * (`validateRecord`) checks them all before they reach the observation index.
 */

/** Names of the collector formats `data import --format` accepts. */
export type CollectorFormatName = 'ndjson' | 'zgrab2' | 'masscan' | 'leakix' | 'x509' | 'whois-raw';

/**
 * Text a collector saw that fingerprinting may identify a product from: `matches` is the name Rapid7 Recog
 * databases declare (`http_header.server`, `ssh.banner`, `ftp.banner`, `smtp.banner`, `html_title`,
 * `http_header.x-powered-by`, `http_header.wwwauth`, `x509.subject`, `x509.issuer`, `favicon.md5`, …).
 */
export interface FingerprintEvidence {
  readonly matches: string;
  readonly text: string;
}

/** One record an item yields, before validation, with the evidence fingerprinting may use (hosts, vhosts). */
export interface CollectedRecord {
  readonly dataset: Dataset;
  readonly record: Record<string, unknown>;
  readonly evidence: readonly FingerprintEvidence[];
}

/** An item (or a part of one) that cannot become a record: the reason, in words a person can act on. */
export class CollectedRecordRefused extends Error {
  override readonly name = 'CollectedRecordRefused';
}

export interface CollectorContext {
  /** The import's time (ISO 8601, UTC): first_seen/last_seen of an item that carries no time of its own. */
  readonly seenAt: string;
  /** The file the item comes from (`-` for standard input), for messages. */
  readonly source: string;
  /** The dataset the user named; undefined with `auto` (the format decides). */
  readonly dataset?: Dataset;
}

/** How one collector's output becomes records. */
export interface CollectorFormat {
  readonly name: CollectorFormatName;
  /** `lines`: every non-blank line is an item; `file`: a whole file is one item (certificates, a WHOIS response). */
  readonly unit: 'lines' | 'file';
  /** Whether content starting with `head` (a file's first 64 KiB) looks like this format (`--format` omitted). */
  sniff(head: Buffer): boolean;
  /**
   * The records of one item (a line's text, or a file's bytes). A bad item throws CollectedRecordRefused; an
   * item with several parts (a PEM file of many certificates) returns a refusal in place of each bad part.
   */
  records(item: string | Buffer, context: CollectorContext): Array<CollectedRecord | CollectedRecordRefused>;
}

/** Fills vendor, product, version and cpe of a record from its evidence (fingerprinting); unchanged when nothing matches. */
export interface ObservationIdentifier {
  identify(
    dataset: Dataset,
    record: Record<string, unknown>,
    evidence: readonly FingerprintEvidence[],
  ): Record<string, unknown>;
}
