import { weighted } from './random.js';

/**
 * Data table: domain name words, TLDs, subdomains and the mail, DNS and certificate providers domains use.
 */

export const WORDS_A =
  'acme alder amber anchor apex arc arrow aster atlas aurora axis azure beacon birch bison blue bolt boreal brava bright brook cedar chroma cinder citadel clover cobalt comet condor copper coral crest crimson crystal cypress delta dune eagle echo ember emerald falcon fern fjord flint forest fox frost garnet glacier golden granite harbor hazel helix heron horizon indigo iris ivory jade juniper kestrel kinetic lagoon lark laurel legacy lemon lunar lynx magnet maple marble meadow mercury meridian mesa metro mistral monarch mosaic nimbus noble nordic north nova oak oasis obsidian ocean olive omega onyx orbit orchid osprey pacific palm panda pepper pine pioneer pixel polar prairie prime pulse quartz quasar radiant raven redwood ridge river rocket ruby saffron sage sapphire sequoia sierra silver solar sparrow spruce summit swift tango terra thistle thunder tidal timber titan topaz trident tulip tundra umber valley vector velvet venture verde vertex violet vista walnut willow wolf zenith zephyr'.split(
    ' ',
  );
export const WORDS_B =
  'labs soft tech works systems cloud media group logistics health bank energy foods design studio consulting partners solutions network data digital shop store travel motors legal finance capital insurance pharma clinic school academy games hosting security analytics robotics marine aero build homes realty farms wines coffee fashion sports fitness music films press news radio apps devops hub port point line link web mail box base stack forge craft mark tree bridge gate tower ventures industries electric telecom optics dynamics metrics machines pay market trade freight bikes pets care dental vision audio print paper textiles steel plastics chemicals mining water air power grid scale fleet'.split(
    ' ',
  );

interface Tld {
  readonly suffix: string;
  readonly country?: string;
}

export const TLDS = weighted<Tld>([
  [{ suffix: 'com' }, 46],
  [{ suffix: 'net' }, 6],
  [{ suffix: 'org' }, 5],
  [{ suffix: 'io' }, 3],
  [{ suffix: 'co' }, 1],
  [{ suffix: 'info' }, 1.5],
  [{ suffix: 'xyz' }, 1.5],
  [{ suffix: 'app' }, 0.7],
  [{ suffix: 'dev' }, 0.7],
  [{ suffix: 'shop' }, 0.6],
  [{ suffix: 'eu' }, 1.2],
  [{ suffix: 'de', country: 'de' }, 8],
  [{ suffix: 'co.uk', country: 'gb' }, 4],
  [{ suffix: 'fr', country: 'fr' }, 3.5],
  [{ suffix: 'nl', country: 'nl' }, 2.5],
  [{ suffix: 'it', country: 'it' }, 1.5],
  [{ suffix: 'es', country: 'es' }, 1.2],
  [{ suffix: 'pl', country: 'pl' }, 1.2],
  [{ suffix: 'se', country: 'se' }, 0.8],
  [{ suffix: 'ch', country: 'ch' }, 0.8],
  [{ suffix: 'com.br', country: 'br' }, 1.5],
  [{ suffix: 'com.au', country: 'au' }, 1],
  [{ suffix: 'ca', country: 'ca' }, 1],
  [{ suffix: 'jp', country: 'jp' }, 0.8],
  [{ suffix: 'in', country: 'in' }, 0.6],
  [{ suffix: 'ru', country: 'ru' }, 1.2],
  [{ suffix: 'cn', country: 'cn' }, 0.8],
]);

export const TLD_SET: ReadonlySet<string> = new Set(TLDS.items.map((tld) => tld.suffix));

export const GENERIC_COUNTRIES = weighted<string>([
  ['us', 45],
  ['gb', 7],
  ['de', 7],
  ['fr', 5],
  ['ca', 4],
  ['nl', 4],
  ['au', 3],
  ['in', 3],
  ['br', 2],
  ['jp', 2],
  ['es', 2],
  ['it', 2],
  ['se', 1],
  ['ch', 1],
  ['sg', 2],
  ['cn', 3],
  ['ru', 2],
]);

export const COMPANY_SUFFIX: Readonly<Record<string, string>> = {
  us: 'Inc.',
  gb: 'Ltd',
  de: 'GmbH',
  fr: 'SAS',
  nl: 'B.V.',
  it: 'S.r.l.',
  es: 'S.L.',
  pl: 'Sp. z o.o.',
  se: 'AB',
  ch: 'AG',
  br: 'Ltda',
  au: 'Pty Ltd',
  ca: 'Inc.',
  jp: 'K.K.',
  in: 'Pvt. Ltd.',
  ru: 'LLC',
  cn: 'Co., Ltd.',
  sg: 'Pte. Ltd.',
};

export type MailProvider = 'google' | 'microsoft' | 'self' | 'ovh' | 'zoho' | 'proton' | 'ionos' | 'none';
export type NsProvider =
  | 'cloudflare'
  | 'route53'
  | 'godaddy'
  | 'ovh'
  | 'google'
  | 'azure'
  | 'namecheap'
  | 'gandi'
  | 'ionos'
  | 'hetzner'
  | 'self'
  | 'markmonitor';
export type CaId =
  'letsencrypt' | 'gts' | 'digicert' | 'sectigo' | 'globalsign' | 'godaddy' | 'amazon' | 'zerossl';

export const SUBDOMAINS = weighted<string>([
  ['api', 8],
  ['vpn', 6],
  ['remote', 4],
  ['portal', 5],
  ['dev', 5],
  ['staging', 4],
  ['test', 3],
  ['app', 6],
  ['admin', 3],
  ['git', 2],
  ['gitlab', 2],
  ['jenkins', 2],
  ['ci', 2],
  ['jira', 2],
  ['confluence', 2],
  ['wiki', 2],
  ['webmail', 4],
  ['owa', 2],
  ['shop', 3],
  ['blog', 4],
  ['status', 2],
  ['static', 2],
  ['files', 2],
  ['sso', 2],
  ['login', 2],
  ['m', 2],
  ['intranet', 2],
  ['extranet', 1],
  ['ftp', 3],
  ['sftp', 1],
  ['smtp', 2],
  ['imap', 1],
  ['ns1', 1],
  ['grafana', 1],
  ['monitor', 1],
  ['backup', 1],
  ['nas', 1],
  ['cloud', 2],
  ['citrix', 1],
  ['sslvpn', 1],
  ['gw', 1],
  ['secure', 1],
]);

export const MAIL_PROVIDERS = weighted<MailProvider>([
  ['google', 28],
  ['microsoft', 30],
  ['self', 20],
  ['ovh', 4],
  ['zoho', 3],
  ['proton', 2],
  ['ionos', 4],
  ['none', 9],
]);

export const NS_PROVIDERS = weighted<NsProvider>([
  ['cloudflare', 22],
  ['route53', 12],
  ['godaddy', 16],
  ['ovh', 7],
  ['google', 4],
  ['azure', 4],
  ['namecheap', 10],
  ['gandi', 4],
  ['ionos', 5],
  ['hetzner', 3],
  ['self', 5],
  ['markmonitor', 2],
]);

export const NS_PROVIDERS_DE = weighted<NsProvider>([
  ['cloudflare', 15],
  ['ionos', 20],
  ['hetzner', 15],
  ['route53', 8],
  ['ovh', 5],
  ['godaddy', 5],
  ['self', 10],
]);

export const CAS = weighted<CaId>([
  ['letsencrypt', 56],
  ['gts', 6],
  ['digicert', 10],
  ['sectigo', 10],
  ['globalsign', 4],
  ['godaddy', 5],
  ['amazon', 4],
  ['zerossl', 5],
]);

export const CF_NS_NAMES = [
  'ada',
  'bob',
  'carl',
  'dana',
  'elle',
  'fred',
  'gina',
  'hank',
  'ivy',
  'jim',
  'kate',
  'lou',
  'mia',
  'nash',
  'olga',
  'pete',
];
export const HETZNER_NS = ['hydrogen.ns.hetzner.com', 'oxygen.ns.hetzner.com', 'helium.ns.hetzner.de'];
