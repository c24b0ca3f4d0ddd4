/**
 * The words of a scope notification email, in French or English. They say what previously collected
 * observations showed in a watch run, never that a check or scan was executed, and never that a service
 * disappeared or is secure.
 */
import type { NotificationLanguage } from './notification-preference.js';
import type { WatchedService, WatchFindings } from './watch.js';

export interface NotificationEmail {
  readonly subject: string;
  readonly text: string;
}

function service(entry: WatchedService): string {
  const where = entry.port === null ? entry.host : `${entry.host}:${entry.port}`;
  return entry.product ? `${where} (${entry.product})` : where;
}

export function notificationEmail(input: {
  readonly language: NotificationLanguage;
  readonly scopeName: string;
  readonly findings: WatchFindings;
  readonly observedAt: string;
  readonly link: string;
}): NotificationEmail {
  const { findings } = input;
  const lines = (title: string, entries: readonly WatchedService[], total: number, more: string) => [
    title,
    ...entries.map((entry) => `  - ${service(entry)}`),
    ...(total > entries.length ? [`  ${more.replace('{n}', String(total - entries.length))}`] : []),
  ];
  if (input.language === 'fr') {
    return {
      subject: `Surveillance du périmètre ${input.scopeName} : ${findings.newServices} nouveau(x) service(s) observé(s), ${findings.newKev} nouvelle(s) association(s) KEV`,
      text: [
        `Périmètre : ${input.scopeName}`,
        `Observations mises à jour le ${input.observedAt} à partir des données déjà collectées.`,
        '',
        ...(findings.newServices > 0
          ? lines(
              'Services nouvellement observés :',
              findings.newServicesListed,
              findings.newServices,
              'et {n} autre(s)',
            )
          : []),
        ...(findings.newKev > 0
          ? lines(
              'Nouvelles associations au catalogue KEV (logiciel observé associé à une vulnérabilité exploitée connue) :',
              findings.newKevListed,
              findings.newKev,
              'et {n} autre(s)',
            )
          : []),
        '',
        'Ces informations proviennent d’observations collectées précédemment et du catalogue de vulnérabilités. ' +
          'Aucun actif n’a été contacté. Une association au catalogue ne confirme ni la configuration ni ' +
          'l’exploitabilité. Un service absent d’une mise à jour ne prouve pas qu’il a disparu.',
        `Inventaire : ${input.link}`,
      ].join('\n'),
    };
  }
  return {
    subject: `Watch of scope ${input.scopeName}: ${findings.newServices} newly observed service(s), ${findings.newKev} new KEV association(s)`,
    text: [
      `Scope: ${input.scopeName}`,
      `Observations refreshed on ${input.observedAt} from previously collected data.`,
      '',
      ...(findings.newServices > 0
        ? lines('Newly observed services:', findings.newServicesListed, findings.newServices, 'and {n} more')
        : []),
      ...(findings.newKev > 0
        ? lines(
            'New KEV catalogue associations (observed software associated with a known exploited vulnerability):',
            findings.newKevListed,
            findings.newKev,
            'and {n} more',
          )
        : []),
      '',
      'This comes from previously collected observations and the vulnerability catalogue. No asset was contacted. ' +
        'A catalogue association confirms neither configuration nor exploitability. A service missing from a ' +
        'refresh does not show that it disappeared.',
      `Inventory: ${input.link}`,
    ].join('\n'),
  };
}
