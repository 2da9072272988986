import type { Transaction } from "kysely";
import type { Finding, OutboundEnvelope } from "../../../edifact/index.js";
import { recordAudits, type AuditEvent } from "../../../platform/audit/index.js";
import {
  defaultChunkBytes,
  writeBlob,
  writeSmallBlobs,
  type StoredBlob,
} from "../../../platform/blobs/index.js";
import type { Clock } from "../../../platform/clock/clock.js";
import { lockConnection, reservePositions } from "../connections.repository.js";
import type { ExchangeDeps } from "../exchange.deps.js";
import type { ExchangeTables } from "../exchange.tables.js";
import { insertDeliveries, readyForClaim } from "../mailbox/index.js";
import type { Profile } from "../profile.js";
import type { RunningAnalysis } from "./processing-runner.js";
import * as repo from "./processing.repository.js";
import {
  duplicateFinding,
  outboundObserver,
  type AnalysisSummary,
  type OutboundPlan,
} from "./processing.rules.js";

/*
 * An upload's outcome: its outbound messages built (`buildUpload`), then written with its final
 * status in one transaction (`recordUploads`) — the one write path of an upload processed alone (a
 * list of one) and of a batch.
 */

type Trx = Transaction<ExchangeTables>;

const dayMs = 86_400_000;

/**
 * Thrown by `recordUploads` when an upload repeats a processed upload of its connection (found
 * under the connection's lock): the transaction rolls back. Alone, the upload is processed again
 * as the duplicate of `earlier` (CONTRL 26, nothing else); a batch is processed one by one. The
 * check runs once per upload, where it decides; a duplicate pays for one analysis more.
 */
export class DuplicateFound extends Error {
  constructor(readonly earlier: string) {
    super("the upload repeats a processed upload");
  }
}

/** What the duplicate check of an upload needs (rules/contract §8). */
export interface DuplicateCheck {
  /** SHA-256 of UNB sender, recipient and control reference; null without a readable UNB. */
  key: Buffer | null;
  /** Processed uploads completed since then count; null when the profile's window is 0. */
  since: Date | null;
  /** The earlier upload this one repeats, as found by an earlier run of the job. */
  duplicateOf: string | null;
}

/** The duplicate key of the upload's interchange and the window it is checked in (rules/contract §8). */
export function duplicateCheck(
  summary: AnalysisSummary,
  windowDays: number,
  duplicateOf: string | null,
  clock: Pick<Clock, "now">,
): DuplicateCheck {
  const key = summary.interchangeKey ? repo.interchangeKeyHash(summary.interchangeKey) : null;
  if (!key || windowDays <= 0) return { key, since: null, duplicateOf: null };
  return { key, since: new Date(clock.now().getTime() - windowDays * dayMs), duplicateOf };
}

/** Whether the upload is checked against the processed uploads under the connection's lock. */
const checked = (d: DuplicateCheck): d is DuplicateCheck & { key: Buffer; since: Date } =>
  d.duplicateOf === null && d.key !== null && d.since !== null;

/** An upload, its outbound messages built, ready to be written (`recordUploads`). */
export interface BuiltUpload {
  upload: { tenant_id: string; id: string; connection_id: string; interchange_id: string | null };
  summary: AnalysisSummary;
  plan: OutboundPlan;
  envelopes: OutboundEnvelope[];
  /** One per planned message. */
  payloads: Uint8Array[];
  duplicate: DuplicateCheck;
  /** The upload's findings: a duplicate's first, then the analysis's and the plan's. */
  findings: Finding[];
  status: "processed" | "rejected";
}

/** The envelopes of an upload's outbound messages, one fresh control reference each. */
const envelopesOf = (profile: Profile, controlRefs: readonly string[], now: Date): OutboundEnvelope[] =>
  controlRefs.map((controlRef) => ({
    syntaxIdentifier: profile.syntaxIdentifier,
    syntaxVersion: profile.syntaxVersion,
    sender: profile.ownIdentification,
    recipient: profile.partnerIdentification,
    controlRef,
    messageRef: "1",
    preparedAt: now,
  }));

/** Builds the planned messages of an analysed upload (`controlRefs`: one per message) and its outcome. */
export async function buildUpload(input: {
  upload: BuiltUpload["upload"];
  profile: Profile;
  run: RunningAnalysis;
  plan: OutboundPlan;
  duplicate: DuplicateCheck;
  controlRefs: readonly string[];
  now: Date;
}): Promise<BuiltUpload> {
  const { upload, profile, run, plan, duplicate } = input;
  const { summary } = run;
  const envelopes = envelopesOf(profile, input.controlRefs, input.now);
  const payloads = (await run.build(envelopes)).slice(0, plan.types.length);
  if (payloads.length !== plan.types.length) throw new Error("a planned message was not built");
  for (const [index, payload] of payloads.entries()) {
    const type = plan.types[index];
    if (type) outboundObserver.check?.(type, payload, profile);
  }
  const { duplicateOf } = duplicate;
  const leading = duplicateOf === null ? [] : [duplicateFinding(duplicateOf, summary.headerPosition)];
  return {
    upload,
    summary,
    plan,
    envelopes,
    payloads,
    duplicate,
    findings: [...leading, ...summary.findings, ...plan.findings],
    status: duplicateOf !== null || summary.rejected ? "rejected" : "processed",
  };
}

/** The mailbox entry of an upload's outbound message `index`, ready for the partner's claim. */
function deliveryRow(
  b: BuiltUpload,
  index: number,
  m: { id: string; position: number; blob: StoredBlob | undefined; now: Date },
) {
  const { upload, plan } = b;
  const { blob, now } = m;
  const envelope = b.envelopes[index];
  const type = plan.types[index];
  if (!envelope || !blob || !type) throw new Error("a planned message was not built");
  return {
    tenant_id: upload.tenant_id,
    id: m.id,
    connection_id: upload.connection_id,
    upload_id: upload.id,
    position: m.position,
    message_type: type,
    interchange_id: envelope.controlRef,
    inbound_interchange_id: b.summary.interchangeId ?? upload.interchange_id,
    message_reference: envelope.messageRef,
    answers_message_reference: plan.answers[index] ?? null,
    blob_id: blob.id,
    payload_size: blob.byteCount,
    payload_sha256: blob.sha256,
    ...readyForClaim(now),
    receipt_id: null,
    acknowledged_at: null,
    created_at: now,
    updated_at: now,
  };
}

/** The audit record of an upload's outcome (`upload.processed`, `upload.rejected`). */
const outcomeAudit = (
  { upload, status, plan, findings, duplicate }: BuiltUpload,
  id: string,
  now: Date,
): AuditEvent => ({
  tenantId: upload.tenant_id,
  id,
  type: `upload.${status}`,
  occurredAt: now,
  principalId: null,
  connectionId: upload.connection_id,
  uploadId: upload.id,
  targetType: "upload",
  targetId: upload.id,
  outcome: status,
  data: {
    outboundCount: plan.types.length,
    findingCount: findings.length,
    ...(duplicate.duplicateOf === null ? {} : { duplicateOf: duplicate.duplicateOf }),
  },
});

/** The log line of an upload written (in the job's trace: it names the upload request's trace). */
export function logRecorded(
  logger: ExchangeDeps["logger"],
  { upload, status, plan, duplicate }: BuiltUpload,
) {
  logger.info(
    {
      tenantId: upload.tenant_id,
      uploadId: upload.id,
      status,
      outboundCount: plan.types.length,
      ...(duplicate.duplicateOf === null ? {} : { duplicateOf: duplicate.duplicateOf }),
    },
    "upload processed",
  );
}

export type RecordUploads = (built: readonly BuiltUpload[], now: Date) => Promise<BuiltUpload[]>;

/**
 * The one write path of processing: built uploads (one alone, up to a batch's) with their mailbox
 * entries, blobs, final statuses, document numbers, audit records and operator events, in one
 * transaction, each kind in one statement for all of them (a re-run after a crash never
 * duplicates entries). Answers the uploads written; one that another run finished meanwhile keeps
 * its outcome and gets nothing written. Throws `DuplicateFound`, and whatever failed: nothing is
 * then written.
 */
export function createUploadRecorder(deps: ExchangeDeps): RecordUploads {
  const { database, clock } = deps;
  const transfer = database.tuning.byteaTransfer;

  /**
   * The outbound blobs, in message order: those up to one chunk in one statement
   * (`writeSmallBlobs`), a larger one (only an upload processed alone has one) through `writeBlob`.
   */
  async function writeOutboundBlobs(trx: Trx, live: readonly BuiltUpload[]) {
    const inputs = live.flatMap((b) =>
      b.payloads.map((bytes) => ({
        tenantId: b.upload.tenant_id,
        id: deps.newId(),
        contentType: "application/edifact",
        bytes,
      })),
    );
    const large = (input: { bytes: Uint8Array }) => input.bytes.byteLength > defaultChunkBytes;
    const small = await writeSmallBlobs(
      trx,
      clock,
      inputs.filter((input) => !large(input)),
    );
    const stored = new Map(small.map((blob) => [blob.id, blob]));
    for (const input of inputs.filter(large)) {
      stored.set(input.id, await writeBlob(trx, clock, { ...input, transfer }));
    }
    return inputs.map((input) => stored.get(input.id));
  }

  /**
   * Each connection's mailbox positions (its next one), reserved in a fixed order of connections
   * (two runs never deadlock). Reserving locks the connection's row until the commit, so every
   * other upload of the connection that may become processed waits its turn: positions stay
   * gap-free and in upload order, and the duplicate check then sees every upload committed
   * before. A connection with nothing to reserve is locked (`lockConnection`) only for a
   * processed upload's duplicate check; an upload rejected for its own errors needs no lock.
   */
  async function reserveConnections(trx: Trx, live: readonly BuiltUpload[]) {
    const connections = new Map<
      string,
      { tenantId: string; id: string; count: number; lock: boolean; next: number }
    >();
    for (const { upload, plan, status, duplicate } of live) {
      const key = `${upload.tenant_id}/${upload.connection_id}`;
      const entry = connections.get(key) ?? {
        tenantId: upload.tenant_id,
        id: upload.connection_id,
        count: 0,
        lock: false,
        next: 0,
      };
      entry.count += plan.types.length;
      entry.lock ||= status === "processed" && checked(duplicate);
      connections.set(key, entry);
    }
    for (const key of [...connections.keys()].sort()) {
      const entry = connections.get(key);
      if (!entry) continue;
      if (entry.count > 0) entry.next = await reservePositions(trx, entry.tenantId, entry.id, entry.count);
      else if (entry.lock) await lockConnection(trx, entry.tenantId, entry.id);
    }
    return connections;
  }

  /**
   * The duplicate check under the connections' locks (a fresh snapshot: READ COMMITTED sees every
   * upload of the same interchange that committed before, also one processed at the same time).
   * Alone, the latest processed upload it repeats (`duplicateLookup`, its own window); several,
   * any (`batchDuplicateLookup`, one statement for all). The rollback returns the positions.
   */
  async function checkDuplicates(trx: Trx, live: readonly BuiltUpload[]) {
    const checks = live.flatMap(({ upload, duplicate }) =>
      checked(duplicate)
        ? [
            {
              tenantId: upload.tenant_id,
              connectionId: upload.connection_id,
              key: duplicate.key,
              since: duplicate.since,
            },
          ]
        : [],
    );
    const [only] = live;
    const [check] = checks;
    if (!only || !check) return;
    const earlier =
      live.length === 1
        ? await repo.findProcessedDuplicate(
            trx,
            check.tenantId,
            check.connectionId,
            check.key,
            check.since,
            only.upload.id,
          )
        : await repo.findBatchDuplicate(
            trx,
            checks,
            live.map((b) => b.upload.id),
          );
    if (earlier) throw new DuplicateFound(earlier.id);
  }

  return (built, now) =>
    database.transaction(async (trx) => {
      // The final statuses first: they lock the uploads until the commit.
      const moved = await repo.finishUploads(
        trx,
        built.map((b) => ({
          tenantId: b.upload.tenant_id,
          id: b.upload.id,
          status: b.status,
          findings: b.findings.length > 0 ? b.findings : null,
          interchangeKey: b.duplicate.key,
          duplicateOf: b.duplicate.duplicateOf,
        })),
        now,
      );
      const live = built.filter((b) => moved.has(b.upload.id));
      if (live.length === 0) return [];
      // The blobs before the connections' locks, which are then held only for the short rest.
      const blobs = await writeOutboundBlobs(trx, live);
      const connections = await reserveConnections(trx, live);
      await checkDuplicates(trx, live);
      let blobIndex = 0;
      await insertDeliveries(
        trx,
        live.flatMap((b) => {
          const connection = connections.get(`${b.upload.tenant_id}/${b.upload.connection_id}`);
          if (!connection) throw new Error("a connection of the uploads was not reserved");
          return b.plan.types.map((_, index) =>
            deliveryRow(b, index, {
              id: deps.newId(),
              position: connection.next++,
              blob: blobs[blobIndex++],
              now,
            }),
          );
        }),
      );
      await repo.insertUploadDocuments(
        trx,
        live.flatMap(({ upload, summary }) =>
          summary.documentNumbers.map((number) => ({
            tenantId: upload.tenant_id,
            uploadId: upload.id,
            number,
          })),
        ),
      );
      await recordAudits(
        trx,
        live.map((b) => outcomeAudit(b, deps.newId(), now)),
      );
      for (const { upload } of live.filter((b) => b.status === "rejected")) {
        await deps.raiseOperatorEvent(trx, {
          tenantId: upload.tenant_id,
          type: "exchange.upload.rejected",
          occurredAt: now,
          subject: { uploadId: upload.id, connectionId: upload.connection_id },
        });
      }
      return live;
    });
}
