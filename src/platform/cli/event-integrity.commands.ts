import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { CheckpointSigner } from '../event-store/checkpoint-signer.js';
import type { ChainCheckpoint, VerificationReport } from '../event-store/event-log-integrity.js';
import { isGlobalPosition, type GlobalPosition } from '../event-store/global-position.js';
import { KeyRing } from '../event-store/signing-key-ring.js';
import type { KeyedVerificationReport, RotationResult } from '../event-store/tamper-evidence.js';
import { action, type CliRuntime } from './cli-runtime.js';
import { startProgress } from './progress.js';

/** Exit code of a log that does not verify (as `projections verify` for a differing read model). */
const TAMPERED_EXIT_CODE = 4;

/** A checkpoint as `events checkpoint --json` prints it, for keeping outside the service. */
export function checkpointAsJson(checkpoint: ChainCheckpoint, publicKeyPem: string): Record<string, unknown> {
  return {
    position: checkpoint.position,
    chain_index: checkpoint.chainIndex,
    chain_head: checkpoint.chainHead,
    at: checkpoint.at,
    key_id: checkpoint.keyId,
    signature: checkpoint.signature,
    public_key: publicKeyPem,
  };
}

/** Reads a checkpoint kept outside (the JSON `events checkpoint --json` printed). */
export function parseCheckpointFile(path: string): ChainCheckpoint {
  let raw: Record<string, unknown>;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  } catch (error) {
    throw new Error(`--checkpoint ${path}: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }
  const { position, chain_index, chain_head, at, key_id, signature } = raw;
  if (
    typeof position !== 'string' ||
    !isGlobalPosition(position) ||
    typeof chain_index !== 'number' ||
    !Number.isSafeInteger(chain_index) ||
    typeof chain_head !== 'string' ||
    typeof at !== 'string' ||
    typeof key_id !== 'string' ||
    typeof signature !== 'string'
  )
    throw new Error(`--checkpoint ${path} is not a checkpoint printed by \`events checkpoint --json\``);
  return { position, chainIndex: chain_index, chainHead: chain_head, at, keyId: key_id, signature };
}

export function reportAsJson(
  report: VerificationReport | KeyedVerificationReport,
  keyId: string,
): Record<string, unknown> {
  const history = 'keyHistory' in report ? report.keyHistory : undefined;
  return {
    ok: report.ok,
    from: report.from,
    events_checked: report.eventsChecked,
    sealed_through: report.sealedThrough && {
      position: report.sealedThrough.position,
      chain_index: report.sealedThrough.chainIndex,
      chain_head: report.sealedThrough.chainHead,
    },
    unsealed: report.unsealed,
    erased_spans: report.erasedSpans.map((span) => ({
      stream: span.streamId,
      from_version: span.fromVersion,
      to_version: span.toVersion,
      from_position: span.fromPosition,
      to_position: span.toPosition,
      erased_by: span.erasedBy,
      erased_at: span.erasedAt,
    })),
    checkpoints_checked: report.checkpointsChecked,
    last_verified_checkpoint: report.lastVerifiedCheckpoint && {
      position: report.lastVerifiedCheckpoint.position,
      chain_index: report.lastVerifiedCheckpoint.chainIndex,
      chain_head: report.lastVerifiedCheckpoint.chainHead,
      at: report.lastVerifiedCheckpoint.at,
    },
    key_id: keyId,
    ...(history
      ? {
          trusted_keys: history.ring.keys.map((key) => ({
            key_id: key.keyId,
            source: key.source,
            retired_at: history.retirement(key.keyId)?.rotation.retiredAt ?? key.retiredAt,
            retired_at_position: history.retirement(key.keyId)?.position ?? null,
          })),
          key_rotations: history.rotations.map((recorded) => ({
            position: recorded.position,
            retired_key_id: recorded.rotation.retiredKeyId,
            successor_key_id: recorded.rotation.successorKeyId,
            retired_at: recorded.rotation.retiredAt,
            operator: recorded.rotation.operator,
            reason: recorded.rotation.reason,
          })),
        }
      : {}),
    finding: report.finding && {
      kind: report.finding.kind,
      position: report.finding.position,
      event_id: report.finding.eventId,
      stream: report.finding.streamId,
      detail: report.finding.detail,
    },
  };
}

function formatReport(report: KeyedVerificationReport): string {
  const lines: string[] = [];
  if (report.finding) {
    const f = report.finding;
    lines.push(`TAMPERED: ${f.kind.replace(/_/g, ' ')} at position ${f.position ?? 'unknown'}`);
    lines.push(`  ${f.detail}`);
    lines.push(`  (${report.eventsChecked} events verified before it)`);
  } else {
    const through = report.sealedThrough;
    lines.push(
      `verified: ${report.eventsChecked} events${report.from ? ` after ${report.from}` : ''}` +
        (through ? `, sealed through position ${through.position} (chain index ${through.chainIndex})` : '') +
        (report.unsealed ? `, ${report.unsealed} not sealed yet` : ''),
    );
    if (through) lines.push(`  chain head ${through.chainHead}`);
  }
  const last = report.lastVerifiedCheckpoint;
  lines.push(
    `checkpoints: ${report.checkpointsChecked} checked` +
      (last ? `, last verified: chain index ${last.chainIndex} signed ${last.at}` : ''),
  );
  for (const recorded of report.keyHistory.rotations)
    lines.push(
      `key rotation at position ${recorded.position}: ${recorded.rotation.retiredKeyId} → ${recorded.rotation.successorKeyId} ` +
        `(${recorded.rotation.retiredAt}, ${recorded.rotation.operator}: ${recorded.rotation.reason})`,
    );
  if (report.erasedSpans.length > 0) {
    lines.push(`erased (not tampering): ${report.erasedSpans.length} span(s)`);
    for (const span of report.erasedSpans)
      lines.push(
        `  ${span.streamId} versions ${span.fromVersion}-${span.toVersion} (positions ${span.fromPosition}..${span.toPosition}) erased by event ${span.erasedBy} at ${span.erasedAt}`,
      );
  }
  return lines.join('\n');
}

/** `events verify` and `events checkpoint` (ADR 0061). */
export function registerIntegrityCommands(events: Command, runtime: CliRuntime): void {
  events
    .command('verify')
    .description(
      'verify the log against its hash chain and signed checkpoints; names the first position where an event was changed, removed, inserted or reordered (exit code 4)',
    )
    .option('--from <position>', 'verify only the events after this global position')
    .option(
      '--checkpoint <file>',
      'a checkpoint kept outside (from `events checkpoint --json`) the log must match',
    )
    .option(
      '--trusted-key <pem>',
      "a public key to trust (repeatable; a retired key's ring entry keeps its retirement): verify against the keys you hold instead of the service's ring",
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .option('--json', 'machine-readable report')
    .action(
      action(
        runtime,
        async (options: { from?: string; checkpoint?: string; trustedKey?: string[]; json?: boolean }) => {
          if (options.from !== undefined && !isGlobalPosition(options.from))
            throw new Error('--from must be a global position');
          const external = options.checkpoint ? parseCheckpointFile(options.checkpoint) : undefined;
          const trustedKeys = options.trustedKey?.length ? KeyRing.fromFiles(options.trustedKey) : undefined;
          const evidence = (await runtime.open()).tamperEvidence;
          const progress = startProgress('verifying the event log', {
            json: Boolean(options.json),
            unit: 'events',
          });
          const report = await evidence.verify({
            from: (options.from as GlobalPosition | undefined) ?? null,
            ...(external ? { externalCheckpoint: external } : {}),
            ...(trustedKeys ? { trustedKeys } : {}),
            onProgress: (checked, total) => progress.update(checked, { total }),
          });
          progress.stop();
          runtime.print(Boolean(options.json), reportAsJson(report, evidence.signer.keyId), () =>
            formatReport(report),
          );
          return report.ok ? 0 : TAMPERED_EXIT_CODE;
        },
      ),
    );

  events
    .command('rotate-key')
    .description(
      'retire the checkpoint signing key for a new one: records the hand-over (signed by both keys) and signs a checkpoint with the new key',
    )
    .option(
      '--reason <text>',
      'why (required: a rotation changes whose signature the log trusts; recorded on the event)',
    )
    .option(
      '--key-file <pem>',
      'the new Ed25519 private key (PKCS#8 PEM); default: a new key generated into DATA_DIR',
    )
    .option('--json', 'machine-readable output')
    .action(
      action(runtime, async (options: { reason?: string; keyFile?: string; json?: boolean }) => {
        const envelope = await runtime.operatorEnvelope({
          command: 'events rotate-key',
          payer: 'system',
          reason: options.reason,
          reasonRequired: true,
        });
        const successor = readSuccessorKey(options.keyFile);
        const context = await runtime.open();
        const { file, pem } = context.config.eventLogSigningKey;
        if ((file !== undefined || pem !== undefined) && options.keyFile === undefined)
          throw new Error(
            `the signing key is configured (${file !== undefined ? `KEY_FILE ${file}` : 'EVENT_LOG_SIGNING_KEY'}): ` +
              'pass the new key with --key-file <pem>, then point the configuration of every instance at it',
          );
        const result = await context.tamperEvidence.rotate({
          successor: successor.signer,
          successorPem: successor.pem,
          reason: envelope.metadata.reason!,
          metadata: envelope.metadata,
        });
        runtime.print(Boolean(options.json), rotationAsJson(result), () => formatRotation(result));
        return 0;
      }),
    );

  events
    .command('checkpoint')
    .description(
      'seal the log and print its latest signed checkpoint (signing a new one when the log moved), to keep outside the service',
    )
    .option('--json', 'the checkpoint as JSON, with the public key that verifies it')
    .action(
      action(runtime, async (options: { json?: boolean }) => {
        const evidence = (await runtime.open()).tamperEvidence;
        const checkpoint = await evidence.checkpoint();
        if (!checkpoint) {
          process.stderr.write('the event log is empty: nothing to sign yet\n');
          return 5;
        }
        // The key that signed it (after a rotation, the newest checkpoint may predate this process's key).
        const signedBy =
          evidence.keyRing().get(checkpoint.keyId)?.publicKeyPem ?? evidence.signer.publicKeyPem;
        const json = checkpointAsJson(checkpoint, signedBy);
        runtime.print(Boolean(options.json), json, () =>
          [
            `checkpoint at position ${checkpoint.position} (chain index ${checkpoint.chainIndex})`,
            `  chain head ${checkpoint.chainHead}`,
            `  signed ${checkpoint.at} by key ${checkpoint.keyId}: ${checkpoint.signature}`,
            'keep the --json output outside the service; `events verify --checkpoint <file>` proves the log still matches it',
          ].join('\n'),
        );
        return 0;
      }),
    );
}

function readSuccessorKey(path: string | undefined): { signer: CheckpointSigner; pem: string } {
  if (path === undefined) return CheckpointSigner.generate();
  let pem: string;
  try {
    pem = readFileSync(path, 'utf8');
    return { signer: CheckpointSigner.fromPem(pem), pem };
  } catch (error) {
    throw new Error(`--key-file ${path}: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }
}

function rotationAsJson(result: RotationResult): Record<string, unknown> {
  const { rotation } = result;
  return {
    position: result.position,
    retired_key: {
      key_id: rotation.retiredKeyId,
      public_key: rotation.retiredPublicKey,
      retired_at: rotation.retiredAt,
      key_ring_entry: result.retiredKeyEntry,
      key_ring_file: result.retiredKeyFile,
    },
    active_key: { key_id: rotation.successorKeyId, public_key: rotation.successorPublicKey },
    installed: result.installed,
    reason: rotation.reason,
    operator: rotation.operator,
    checkpoint: result.checkpoint && checkpointAsJson(result.checkpoint, rotation.successorPublicKey),
  };
}

function formatRotation(result: RotationResult): string {
  const { rotation } = result;
  const lines = [
    `key ${rotation.retiredKeyId} retired for ${rotation.successorKeyId} at position ${result.position} (${rotation.retiredAt})`,
    result.checkpoint
      ? `  first checkpoint of the new key: chain index ${result.checkpoint.chainIndex}, position ${result.checkpoint.position}`
      : '  the rotation record is not sealed yet: the sealer signs the first checkpoint of the new key',
  ];
  if (result.retiredKeyFile) lines.push(`  the retired public key is kept in ${result.retiredKeyFile}`);
  if (result.installed === 'data_dir')
    lines.push(
      '  the new key replaced the generated one in DATA_DIR: a service on this DATA_DIR switches to it',
    );
  else
    lines.push(
      '  point KEY_FILE (or EVENT_LOG_SIGNING_KEY) of every instance at the new key and restart them; until then they sign nothing',
    );
  lines.push(
    '  instances on another DATA_DIR: add this entry to their EVENT_LOG_TRUSTED_KEYS_FILE:',
    ...result.retiredKeyEntry
      .trimEnd()
      .split('\n')
      .map((line) => `    ${line}`),
  );
  return lines.join('\n');
}
