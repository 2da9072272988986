import type { RequestOrigin } from "../../../platform/auth/index.js";
import type { StoredBlob } from "../../../platform/blobs/index.js";
import { sha256 } from "../../../platform/crypto/index.js";
import { AppError } from "../../../platform/errors/app-error.js";
import { enqueuingTraceContext } from "../../../platform/jobs/index.js";
import type { ExchangeDeps } from "../exchange.deps.js";
import type { UploadStatus } from "../exchange.tables.js";
import { processUpload } from "../processing/index.js";
import type { InboxBacklog } from "./inbox-backlog.js";
import * as repo from "./inbox.repository.js";

export interface UploadOutcome {
  status: 200 | 202;
  body: { uploadId: string; interchangeId?: string; status: UploadStatus; replay: boolean };
}

/** The hash under which an upload's Idempotency-Key is stored, per connection. */
export const keyHash = (connectionId: string, key: string): Buffer =>
  sha256(`exchange-upload-key\n${connectionId}\n${key}`);

/** 200 with the upload the key names when the bytes are the same, else 409. */
export const replayOf = (
  existing: { id: string; sha256: Uint8Array; interchange_id: string | null; status: UploadStatus },
  digest: Buffer,
): UploadOutcome => {
  if (!Buffer.from(existing.sha256).equals(digest)) {
    throw new AppError(
      "ERR_B2B_EXCHANGE_CONFLICT",
      "The Idempotency-Key was already used for an upload with other bytes.",
    );
  }
  return {
    status: 200,
    body: {
      uploadId: existing.id,
      ...(existing.interchange_id ? { interchangeId: existing.interchange_id } : {}),
      status: existing.status,
      replay: true,
    },
  };
};

/**
 * What both ways of uploading share around the accept statement: the rows it takes, and the
 * answer to what it did (a new upload wakes the workers and counts towards the backlog).
 */
export function createUploadAcceptance(
  deps: Pick<ExchangeDeps, "database" | "clock" | "newId">,
  after: { backlog: Pick<InboxBacklog, "accepted">; wakeWorkers: () => void },
) {
  const { db } = deps.database;

  return {
    /** The upload row, its audit event and its processing job, as the accept statement takes them. */
    newUpload(
      connectionId: string,
      keyHash: Buffer,
      blobId: string,
      stored: Pick<StoredBlob, "byteCount" | "sha256">,
      interchangeId: string | undefined,
      caller: { apiKeyId: string; origin: RequestOrigin | undefined },
    ): repo.AcceptedUpload {
      const id = deps.newId();
      return {
        id,
        connectionId,
        keyHash,
        blobId,
        byteCount: stored.byteCount,
        sha256: stored.sha256,
        interchangeId: interchangeId ?? null,
        at: deps.clock.now(),
        auditId: deps.newId(),
        job: {
          id: deps.newId(),
          name: processUpload.name,
          // No unique job key: the statement inserts the job only with the new upload row, whose
          // key already makes it one per upload (and spares an index entry per upload).
          key: null,
          maxAttempts: processUpload.maxAttempts,
          // The request's trace: the processing job's log lines and calls continue it.
          traceContext: enqueuingTraceContext(),
        },
        origin: {
          apiKeyId: caller.apiKeyId,
          sourceAddress: caller.origin?.sourceAddress ?? null,
          correlationId: caller.origin?.correlationId ?? null,
        },
      };
    },

    /** 202 for a new upload; otherwise the key is taken (found by the statement, or a concurrent request committed first). */
    async outcomeOf(
      result: repo.AcceptResult,
      tenantId: string,
      upload: repo.AcceptedUpload,
    ): Promise<UploadOutcome> {
      if (result.inserted) {
        after.backlog.accepted(tenantId);
        after.wakeWorkers();
        return {
          status: 202,
          body: {
            uploadId: upload.id,
            ...(upload.interchangeId ? { interchangeId: upload.interchangeId } : {}),
            status: "received",
            replay: false,
          },
        };
      }
      const winner =
        result.existing ?? (await repo.findUploadByKey(db, tenantId, upload.connectionId, upload.keyHash));
      if (!winner) throw new AppError("ERR_B2B_EXCHANGE_CONFLICT", "The upload state changed; retry.");
      return replayOf(winner, upload.sha256);
    },
  };
}

export type UploadAcceptance = ReturnType<typeof createUploadAcceptance>;
