/** How a service can look (banner, product, CPE): the row shape of the software tables. */

export const cpe = (
  part: 'a' | 'o' | 'h',
  vendor: string,
  product: string,
  version = '*',
  update = '*',
  edition = '*',
) => `cpe:2.3:${part}:${vendor}:${product}:${version}:${update}:*:*:${edition}:*:*:*`;

/** One way a service can look: what the banner announces and what it is identified as. */
export interface Variant {
  readonly product: string;
  readonly vendor: string;
  readonly version?: string;
  readonly cpe?: readonly string[];
  /** HTTP Server header, for HTTP services. */
  readonly server?: string;
  /** Extra HTTP headers shown in the banner. */
  readonly headers?: readonly string[];
  /** Raw banner, for non-HTTP services. */
  readonly banner?: string;
  readonly family?: string;
}

export const v = (
  product: string,
  vendor: string,
  version: string | undefined,
  cpes: string[],
  extra: Omit<Variant, 'product' | 'vendor' | 'version' | 'cpe'> = {},
): Variant => ({ product, vendor, ...(version ? { version } : {}), cpe: cpes, ...extra });

/** The factory certificate a device presents. */
export type DeviceCertId =
  | 'localhost'
  | 'localdomain'
  | 'ingress'
  | 'traefik'
  | 'plesk'
  | 'synology'
  | 'fortigate'
  | 'globalprotect'
  | 'netscaler'
  | 'vmca'
  | 'iosxe';
