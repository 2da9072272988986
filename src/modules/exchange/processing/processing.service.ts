import type { Finding, OutboundEnvelope } from "../../../edifact/index.js";
import { recordAudit, recordAudits, type AuditEvent } from "../../../platform/audit/index.js";
import {
  defaultChunkBytes,
  readBlobBytes,
  type StoredBlob,
  readBlobsBytes,
  writeBlob,
  writeSmallBlobs,
} from "../../../platform/blobs/index.js";
import { lockConnection, reservePositions } from "../connections.repository.js";
import type { ExchangeDeps } from "../exchange.deps.js";
import { insertDeliveries, insertDelivery, readyForClaim } from "../mailbox/index.js";
import type { Profile } from "../profile.js";
import type { ProcessingRunner, RunningAnalysis } from "./processing-runner.js";
import * as repo from "./processing.repository.js";
import {
  duplicateFinding,
  outboundObserver,
  type AnalysisSummary,
  type Catalog,
  type OutboundPlan,
} from "./processing.rules.js";

const dayMs = 86_400_000;

/**
 * Thrown inside `record()` when a processed upload of the connection has the same interchange
 * (found under the connection's lock): the transaction rolls back and the upload is processed
 * again as the duplicate of `earlier` (CONTRL 26, nothing else). The check runs once per upload,
 * where it decides; a duplicate pays for one analysis more.
 */
class DuplicateFound extends Error {
  constructor(readonly earlier: string) {
    super("the upload repeats a processed upload");
  }
}

/**
 * Thrown inside a batch (`processTogether`) when something needs the rules of one upload at a
 * time: a duplicate interchange (in the batch or processed before), an outbound message larger
 * than one blob chunk. The batch's transaction rolls back and its uploads are processed one by one.
 */
class OneByOne extends Error {
  constructor(reason: string) {
    super(`the batch is processed one by one: ${reason}`);
  }
}

/** Uploads up to this size are processed in a batch; a larger one is processed alone. */
export const batchUploadMaxBytes = 256 * 1024;

/** One upload of a batch, as the job hands it over. */
export interface BatchUpload {
  tenantId: string;
  uploadId: string;
  /** Runs `fn` in the upload's job's trace (its log lines name the upload request's trace). */
  inTrace: <T>(fn: () => T) => T;
}

/** An upload of a batch, its outbound messages built, ready to be written. */
interface BatchMember {
  upload: Awaited<ReturnType<typeof repo.startProcessingMany>>[number];
  summary: AnalysisSummary;
  plan: OutboundPlan;
  envelopes: OutboundEnvelope[];
  payloads: Uint8Array[];
  duplicate: DuplicateCheck;
  findings: Finding[];
  status: "processed" | "rejected";
}

/** How often one job re-runs an upload for a duplicate found before the job itself retries. */
const maxDuplicateRuns = 3;

/** What the duplicate check of an upload needs (rules/contract §8). */
interface DuplicateCheck {
  /** SHA-256 of UNB sender, recipient and control reference; null without a readable UNB. */
  key: Buffer | null;
  /** Processed uploads completed since then count; null when the profile's window is 0. */
  since: Date | null;
  /** The earlier upload this one repeats, as found by an earlier run of the job. */
  duplicateOf: string | null;
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

/** What a delivery row of an outbound message is made of (`deliveryRow`). */
interface OutboundMessage {
  tenantId: string;
  id: string;
  upload: { id: string; connection_id: string; interchange_id: string | null };
  summary: AnalysisSummary;
  plan: OutboundPlan;
  /** Of the message in the plan. */
  index: number;
  position: number;
  envelope: OutboundEnvelope | undefined;
  blob: StoredBlob | undefined;
  now: Date;
}

/** The mailbox entry of an outbound message, ready for the partner's claim. */
function deliveryRow(m: OutboundMessage) {
  const { envelope, blob, upload, plan, now } = m;
  const type = plan.types[m.index];
  if (!envelope || !blob || !type) throw new Error("a planned message was not built");
  return {
    tenant_id: m.tenantId,
    id: m.id,
    connection_id: upload.connection_id,
    upload_id: upload.id,
    position: m.position,
    message_type: type,
    interchange_id: envelope.controlRef,
    inbound_interchange_id: m.summary.interchangeId ?? upload.interchange_id,
    message_reference: envelope.messageRef,
    answers_message_reference: plan.answers[m.index] ?? null,
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
const outcomeAudit = (o: {
  tenantId: string;
  id: string;
  upload: { id: string; connection_id: string };
  status: "processed" | "rejected";
  outboundCount: number;
  findingCount: number;
  duplicateOf: string | null;
  now: Date;
}): AuditEvent => ({
  tenantId: o.tenantId,
  id: o.id,
  type: `upload.${o.status}`,
  occurredAt: o.now,
  principalId: null,
  connectionId: o.upload.connection_id,
  uploadId: o.upload.id,
  targetType: "upload",
  targetId: o.upload.id,
  outcome: o.status,
  data: {
    outboundCount: o.outboundCount,
    findingCount: o.findingCount,
    ...(o.duplicateOf === null ? {} : { duplicateOf: o.duplicateOf }),
  },
});

/** The worker's side of an upload: its EDIFACT work, its outbound messages, its final status. */
export function createProcessingService(deps: ExchangeDeps & { runner: ProcessingRunner }) {
  const { database, clock } = deps;
  const { db } = database;
  const transfer = database.tuning.byteaTransfer;

  /**
   * The mailbox entries, their blobs, the upload's final status and its audit event, in one
   * transaction (a re-run after a crash never duplicates entries).
   */
  async function record(
    tenantId: string,
    upload: { id: string; connection_id: string; interchange_id: string | null },
    outcome: {
      summary: AnalysisSummary;
      plan: OutboundPlan;
      envelopes: readonly OutboundEnvelope[];
      payloads: readonly Uint8Array[];
      now: Date;
      duplicate: DuplicateCheck;
    },
  ): Promise<"processed" | "rejected" | undefined> {
    const { summary, plan, envelopes, payloads, now, duplicate } = outcome;
    const { types } = plan;
    const uploadId = upload.id;
    const status = duplicate.duplicateOf !== null || summary.rejected ? "rejected" : "processed";
    const leading: readonly Finding[] =
      duplicate.duplicateOf === null ? [] : [duplicateFinding(duplicate.duplicateOf, summary.headerPosition)];
    const findings: readonly Finding[] = [...leading, ...summary.findings, ...plan.findings];
    return database.transaction(async (trx) => {
      // The final status first: it also locks the upload until the commit (an upload another run
      // finished meanwhile keeps its outcome, and nothing is written here).
      const moved = await repo.finishUploads(
        trx,
        [
          {
            tenantId,
            id: uploadId,
            status,
            findings: findings.length > 0 ? findings : null,
            interchangeKey: duplicate.key,
            duplicateOf: duplicate.duplicateOf,
          },
        ],
        now,
      );
      if (!moved.has(uploadId)) return undefined;
      // The blobs first: the connection's row stays locked from reserving the mailbox positions
      // to the commit, so every other upload of the connection waits that long.
      const blobs = [];
      for (const [index, payload] of payloads.entries()) {
        if (index >= types.length) break;
        blobs.push(
          await writeBlob(trx, clock, {
            tenantId,
            id: deps.newId(),
            contentType: "application/edifact",
            bytes: payload,
            transfer,
          }),
        );
      }
      // Reserving the mailbox positions locks the connection's row (as `lockConnection` does
      // when there is nothing to reserve): from here to the commit, every upload of the
      // connection that may become processed waits its turn.
      const first =
        types.length > 0 ? await reservePositions(trx, tenantId, upload.connection_id, types.length) : 0;
      if (duplicate.duplicateOf === null && duplicate.key && duplicate.since) {
        // The check under that lock (a fresh snapshot: READ COMMITTED) sees every upload of the
        // same interchange that committed before, also one processed at the same time. An upload
        // rejected for its own errors is checked too (a duplicate is answered with code 26), but
        // needs no lock: it never becomes the processed one.
        if (status === "processed" && types.length === 0) {
          await lockConnection(trx, tenantId, upload.connection_id);
        }
        const earlier = await repo.findProcessedDuplicate(
          trx,
          tenantId,
          upload.connection_id,
          duplicate.key,
          duplicate.since,
          uploadId,
        );
        // The rollback also returns the positions reserved.
        if (earlier) throw new DuplicateFound(earlier.id);
      }
      for (const index of types.keys()) {
        await insertDelivery(
          trx,
          deliveryRow({
            tenantId,
            id: deps.newId(),
            upload,
            summary,
            plan,
            index,
            position: first + index,
            envelope: envelopes[index],
            blob: blobs[index],
            now,
          }),
        );
      }
      await repo.insertUploadDocuments(trx, tenantId, uploadId, summary.documentNumbers);
      await recordAudit(
        trx,
        outcomeAudit({
          tenantId,
          id: deps.newId(),
          upload,
          status,
          outboundCount: types.length,
          findingCount: findings.length,
          duplicateOf: duplicate.duplicateOf,
          now,
        }),
      );
      if (status === "rejected") {
        await deps.raiseOperatorEvent(trx, {
          tenantId,
          type: "exchange.upload.rejected",
          occurredAt: now,
          subject: { uploadId, connectionId: upload.connection_id },
        });
      }
      return status;
    });
  }

  /** One run of `processUpload`; throws DuplicateFound for a duplicate not known yet. */
  async function processOnce(tenantId: string, uploadId: string, duplicateOf: string | null): Promise<void> {
    const upload = await repo.startProcessing(db, tenantId, uploadId, clock.now());
    if (!upload) return;
    const { profile } = upload;
    if (!profile) throw new Error("profile revision of the upload is missing");
    const bytes = await readBlobBytes(database, tenantId, upload.blob_id);
    if (bytes.length !== upload.byte_count) throw new Error("stored upload is incomplete");
    // Parse, validate, plan and serialize: on a worker thread for a large interchange.
    const run = await deps.runner.analyse(bytes, profile);
    try {
      const { summary } = run;
      const duplicate = duplicateCheck(summary, profile.duplicateWindowDays, duplicateOf);
      const catalog: Catalog =
        summary.gtins.length > 0 && duplicate.duplicateOf === null
          ? await deps.workflows.productStates(tenantId, summary.gtins)
          : new Map();
      const plan = await run.plan(catalog, duplicate.duplicateOf !== null);
      const { types } = plan;
      const now = clock.now();
      const controlRefs = await repo.nextControlRefs(db, types.length);
      const envelopes = envelopesOf(profile, controlRefs, now);
      const payloads = await run.build(envelopes);
      for (const [index, payload] of payloads.entries()) {
        const type = types[index];
        if (type) outboundObserver.check?.(type, payload, profile);
      }
      const status = await record(tenantId, upload, { summary, plan, envelopes, payloads, now, duplicate });
      // In the job's trace: the line names the upload request's trace and correlation id.
      if (status) {
        deps.logger.info(
          {
            tenantId,
            uploadId,
            status,
            outboundCount: plan.types.length,
            ...(duplicate.duplicateOf === null ? {} : { duplicateOf: duplicate.duplicateOf }),
          },
          "upload processed",
        );
      }
    } finally {
      run.end();
    }
  }

  /**
   * Several uploads in one transaction (a backlog, issue 35 item 2), each with the outcome it
   * would have alone: their outbound blobs, deliveries, document numbers, final statuses and audit
   * records each in one statement, the connections locked (their positions reserved) in a fixed
   * order, each connection's positions in the order of `items`. Returns the uploads left to process alone (larger than `batchUploadMaxBytes`). Throws
   * `OneByOne` when a rule needs one upload at a time, and whatever failed: nothing of the batch is
   * then written.
   */
  async function processTogether(items: readonly BatchUpload[]): Promise<BatchUpload[]> {
    // In the order of `items` (an UPDATE returns its rows in no particular order).
    const order = new Map(items.map((item, index) => [item.uploadId, index]));
    const started = (await repo.startProcessingMany(db, items, clock.now())).sort(
      (a, b) => (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0),
    );
    const alone = new Set(started.filter((u) => u.byte_count > batchUploadMaxBytes).map((u) => u.id));
    const uploads = started.filter((u) => !alone.has(u.id));
    const leftAlone = items.filter((item) => alone.has(item.uploadId));
    if (uploads.length === 0) return leftAlone;
    const stored = await readBlobsBytes(
      database,
      uploads.map((u) => ({ tenantId: u.tenant_id, id: u.blob_id })),
    );
    const runs: RunningAnalysis[] = [];
    try {
      const analysed: {
        upload: (typeof uploads)[number];
        profile: Profile;
        run: RunningAnalysis;
        duplicate: DuplicateCheck;
      }[] = [];
      const keys = new Set<string>();
      for (const upload of uploads) {
        const { profile } = upload;
        if (!profile) throw new Error("profile revision of the upload is missing");
        const bytes = stored.get(upload.blob_id);
        if (bytes?.length !== upload.byte_count) throw new Error("stored upload is incomplete");
        const run = await deps.runner.analyse(bytes, profile);
        runs.push(run);
        const duplicate = duplicateCheck(run.summary, profile.duplicateWindowDays, null);
        if (duplicate.key && duplicate.since) {
          const key = `${upload.tenant_id}/${upload.connection_id}/${duplicate.key.toString("hex")}`;
          if (keys.has(key)) throw new OneByOne("two uploads of one interchange");
          keys.add(key);
        }
        analysed.push({ upload, profile, run, duplicate });
      }
      // The catalog check's product states, one read per tenant.
      const gtins = new Map<string, Set<string>>();
      for (const { upload, run } of analysed) {
        for (const gtin of run.summary.gtins) {
          gtins.set(upload.tenant_id, (gtins.get(upload.tenant_id) ?? new Set()).add(gtin));
        }
      }
      const catalogs = new Map<string, Catalog>();
      for (const [tenantId, wanted] of gtins) {
        catalogs.set(tenantId, await deps.workflows.productStates(tenantId, [...wanted]));
      }
      const plans: OutboundPlan[] = [];
      for (const { upload, run } of analysed) {
        plans.push(await run.plan(catalogs.get(upload.tenant_id) ?? new Map(), false));
      }
      const now = clock.now();
      const controlRefs = await repo.nextControlRefs(
        db,
        plans.reduce((sum, plan) => sum + plan.types.length, 0),
      );
      const built: BatchMember[] = [];
      for (const [index, { upload, profile, run, duplicate }] of analysed.entries()) {
        const plan = plans[index] as OutboundPlan;
        const envelopes = envelopesOf(profile, controlRefs.splice(0, plan.types.length), now);
        const payloads = (await run.build(envelopes)).slice(0, plan.types.length);
        for (const [i, payload] of payloads.entries()) {
          const type = plan.types[i];
          if (type) outboundObserver.check?.(type, payload, profile);
          if (payload.byteLength > defaultChunkBytes) throw new OneByOne("a large outbound message");
        }
        if (payloads.length !== plan.types.length) throw new Error("a planned message was not built");
        const { summary } = run;
        const findings = [...summary.findings, ...plan.findings];
        built.push({
          upload,
          summary,
          plan,
          envelopes,
          payloads,
          duplicate,
          findings,
          status: summary.rejected ? ("rejected" as const) : ("processed" as const),
        });
      }
      const written = await database.transaction(async (trx) => {
        // The final statuses first: they lock the uploads; one another run finished meanwhile
        // keeps its outcome and gets nothing written here.
        const moved = await repo.finishUploads(
          trx,
          built.map((b) => ({
            tenantId: b.upload.tenant_id,
            id: b.upload.id,
            status: b.status,
            findings: b.findings.length > 0 ? b.findings : null,
            interchangeKey: b.duplicate.key,
            duplicateOf: null,
          })),
          now,
        );
        const live = built.filter((b) => moved.has(b.upload.id));
        const blobs = await writeSmallBlobs(
          trx,
          clock,
          live.flatMap((b) =>
            b.payloads.map((bytes) => ({
              tenantId: b.upload.tenant_id,
              id: deps.newId(),
              contentType: "application/edifact",
              bytes,
            })),
          ),
        );
        // Each connection's positions, the connections locked in a fixed order (no deadlock with
        // another batch); the duplicate check then sees every upload committed before.
        const connections = new Map<string, { tenantId: string; id: string; count: number; next: number }>();
        for (const b of live) {
          const key = `${b.upload.tenant_id}/${b.upload.connection_id}`;
          const entry = connections.get(key) ?? {
            tenantId: b.upload.tenant_id,
            id: b.upload.connection_id,
            count: 0,
            next: 0,
          };
          entry.count += b.plan.types.length;
          connections.set(key, entry);
        }
        for (const key of [...connections.keys()].sort()) {
          const entry = connections.get(key);
          if (entry) entry.next = await reservePositions(trx, entry.tenantId, entry.id, entry.count);
        }
        const checks = live.flatMap(({ upload, duplicate }) =>
          duplicate.key && duplicate.since
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
        if (
          await repo.anyProcessedDuplicate(
            trx,
            checks,
            live.map((b) => b.upload.id),
          )
        ) {
          throw new OneByOne("an upload repeats a processed one");
        }
        let blobIndex = 0;
        await insertDeliveries(
          trx,
          live.flatMap(({ upload, summary, plan, envelopes }) => {
            const connection = connections.get(`${upload.tenant_id}/${upload.connection_id}`);
            if (!connection) throw new Error("a connection of the batch was not locked");
            return plan.types.map((_, index) =>
              deliveryRow({
                tenantId: upload.tenant_id,
                id: deps.newId(),
                upload,
                summary,
                plan,
                index,
                position: connection.next++,
                envelope: envelopes[index],
                blob: blobs[blobIndex++],
                now,
              }),
            );
          }),
        );
        await repo.insertManyUploadDocuments(
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
          live.map(({ upload, status, plan, findings }) =>
            outcomeAudit({
              tenantId: upload.tenant_id,
              id: deps.newId(),
              upload,
              status,
              outboundCount: plan.types.length,
              findingCount: findings.length,
              duplicateOf: null,
              now,
            }),
          ),
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
      const traces = new Map(items.map((item) => [item.uploadId, item]));
      for (const { upload, status, plan } of written) {
        const log = () => {
          deps.logger.info(
            { tenantId: upload.tenant_id, uploadId: upload.id, status, outboundCount: plan.types.length },
            "upload processed",
          );
        };
        const item = traces.get(upload.id);
        if (item) item.inTrace(log);
        else log();
      }
      return leftAlone;
    } finally {
      for (const run of runs) run.end();
    }
  }

  /** The duplicate key of the upload's interchange and the window it is checked in (rules/contract §8). */
  function duplicateCheck(
    summary: AnalysisSummary,
    windowDays: number,
    duplicateOf: string | null,
  ): DuplicateCheck {
    const key = summary.interchangeKey ? repo.interchangeKeyHash(summary.interchangeKey) : null;
    if (!key || windowDays <= 0) return { key, since: null, duplicateOf: null };
    return { key, since: new Date(clock.now().getTime() - windowDays * dayMs), duplicateOf };
  }

  return {
    /**
     * Parses and validates an upload under its profile revision and writes the outbound
     * interchanges into the connection's mailbox. The mailbox entries and the final status are
     * written in one transaction, so a re-run after a crash never duplicates entries.
     */
    async processUpload(tenantId: string, uploadId: string): Promise<void> {
      let duplicateOf: string | null = null;
      for (let run = 1; ; run++) {
        try {
          await processOnce(tenantId, uploadId, duplicateOf);
          return;
        } catch (error) {
          if (!(error instanceof DuplicateFound) || run >= maxDuplicateRuns) throw error;
          duplicateOf = error.earlier;
          deps.logger.info(
            { tenantId, uploadId, duplicateOf },
            "upload repeats a processed upload; processing it as its duplicate",
          );
        }
      }
    },

    /**
     * Several uploads (a batch of jobs): together in one transaction when they can be, else — a
     * duplicate interchange, an upload that fails — one by one as `processUpload`, so one failing
     * upload never fails the others. Answers each upload's failure (undefined: done), in order.
     */
    async processUploads(batch: readonly BatchUpload[]): Promise<unknown[]> {
      // In upload order (UUIDv7 ids: the order of acceptance): the mailbox positions and which of
      // two uploads of one interchange is the duplicate follow it.
      const items = [...batch].sort((a, b) =>
        a.uploadId < b.uploadId ? -1 : a.uploadId > b.uploadId ? 1 : 0,
      );
      let alone: readonly BatchUpload[] = items;
      if (items.length > 1) {
        try {
          alone = await processTogether(items);
        } catch (error) {
          alone = items;
          if (!(error instanceof OneByOne)) {
            deps.logger.warn(
              { uploads: items.length, err: error },
              "processing a batch of uploads failed; processing them one by one",
            );
          } else
            deps.logger.debug({ uploads: items.length, reason: error.message }, "batch processed one by one");
        }
      }
      const failures = new Map<string, unknown>();
      for (const item of alone) {
        try {
          await item.inTrace(() => this.processUpload(item.tenantId, item.uploadId));
        } catch (error) {
          failures.set(item.uploadId, error ?? new Error("processing failed"));
        }
      }
      return batch.map((item) => failures.get(item.uploadId));
    },

    /** The attempt budget is spent: the upload is `failed` and the operator is alerted. */
    async failUpload(tenantId: string, uploadId: string, error: unknown): Promise<void> {
      const now = clock.now();
      await database.transaction(async (trx) => {
        const changed = await repo.setUploadStatus(trx, tenantId, uploadId, "failed", now, {
          error: "Internal processing error",
          from: ["received", "processing"],
        });
        if (!changed) return;
        const upload = await repo.findUpload(trx, tenantId, uploadId);
        await recordAudit(trx, {
          tenantId,
          id: deps.newId(),
          type: "upload.failed",
          occurredAt: now,
          principalId: null,
          connectionId: upload?.connection_id ?? null,
          uploadId,
          targetType: "upload",
          targetId: uploadId,
          outcome: "failed",
        });
        await deps.raiseOperatorEvent(trx, {
          tenantId,
          type: "exchange.upload.failed",
          occurredAt: now,
          subject: { uploadId, ...(upload ? { connectionId: upload.connection_id } : {}) },
        });
      });
      deps.logger.error(
        { tenantId, uploadId, err: error, alert: "exchange.upload.failed" },
        "upload processing failed",
      );
    },
  };
}

export type ProcessingService = ReturnType<typeof createProcessingService>;
