import { defaultChunkBytes, readBlobsBytes } from "../../../platform/blobs/index.js";
import type { ExchangeDeps } from "../exchange.deps.js";
import type { Profile } from "../profile.js";
import type { ProcessingRunner, RunningAnalysis } from "./processing-runner.js";
import {
  buildUpload,
  duplicateCheck,
  DuplicateFound,
  logRecorded,
  type BuiltUpload,
  type DuplicateCheck,
  type RecordUploads,
} from "./processing.outcome.js";
import * as repo from "./processing.repository.js";
import type { Catalog, OutboundPlan } from "./processing.rules.js";

/**
 * Thrown inside a batch (`processTogether`) when something needs the rules of one upload at a
 * time: a duplicate interchange (in the batch or processed before), an outbound message larger
 * than one blob chunk. The batch's transaction rolls back and its uploads are processed one by one.
 */
export class OneByOne extends Error {
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

/**
 * Several uploads in one transaction (a backlog, issue 35 item 2), each with the outcome it
 * would have alone: their start, the read of their bytes, their control references and their
 * write (`recordUploads`) each in one statement for all of them, each connection's positions in
 * the order of `items`. Returns the uploads left to process alone (larger than
 * `batchUploadMaxBytes`). Throws `OneByOne` when a rule needs one upload at a time, and whatever
 * failed: nothing of the batch is then written.
 */
export function createBatchProcessing(
  deps: ExchangeDeps & { runner: ProcessingRunner },
  recordUploads: RecordUploads,
) {
  const { database, clock } = deps;
  const { db } = database;

  return async function processTogether(items: readonly BatchUpload[]): Promise<BatchUpload[]> {
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
        const duplicate = duplicateCheck(run.summary, profile.duplicateWindowDays, null, clock);
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
      const built: BuiltUpload[] = [];
      for (const [index, { upload, profile, run, duplicate }] of analysed.entries()) {
        const plan = plans[index] as OutboundPlan;
        const refs = controlRefs.splice(0, plan.types.length);
        const b = await buildUpload({ upload, profile, run, plan, duplicate, controlRefs: refs, now });
        if (b.payloads.some((payload) => payload.byteLength > defaultChunkBytes)) {
          throw new OneByOne("a large outbound message");
        }
        built.push(b);
      }
      const written = await recordUploads(built, now).catch((error: unknown) => {
        throw error instanceof DuplicateFound ? new OneByOne("an upload repeats a processed one") : error;
      });
      const traces = new Map(items.map((item) => [item.uploadId, item]));
      for (const b of written) {
        const item = traces.get(b.upload.id);
        const log = () => {
          logRecorded(deps.logger, b);
        };
        if (item) item.inTrace(log);
        else log();
      }
      return leftAlone;
    } finally {
      for (const run of runs) run.end();
    }
  };
}
