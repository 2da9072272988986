import type { Readable } from "node:stream";
import { recordAudit } from "../../platform/audit/index.js";
import { BlobTooLargeError, deleteBlob, writeBlobStream } from "../../platform/blobs/index.js";
import type { Principal } from "../../platform/auth/index.js";
import { sha256 } from "../../platform/crypto/index.js";
import { AppError } from "../../platform/http/app-error.js";
import type { JobDefinition } from "../../platform/jobs/index.js";
import type { ExchangeDeps } from "./exchange.deps.js";
import * as repo from "./exchange.repository.js";
import type { UploadStatus } from "./exchange.tables.js";
import { InterchangeScanner } from "./interchange-scanner.js";
import { requirePartnerConnection } from "./partner-access.js";

/** CONTRACT §4 / spec limits: ≤ 200 characters of letters, digits, `.`, `_`, `:`, `-`. */
export const uploadKeyPattern = /^[A-Za-z0-9._:-]{1,200}$/;
const acceptedTypes = new Set(["application/edifact", "application/octet-stream"]);

export interface UploadOutcome {
  status: 200 | 202;
  body: { uploadId: string; interchangeId?: string; status: UploadStatus; replay: boolean };
}

const invalid = (detail: string, pointer: string) =>
  new AppError("ERR_B2B_EXCHANGE_INVALID_REQUEST", detail, { errors: [{ pointer, message: detail }] });

/** The media type without parameters, lower case. */
export const mediaType = (value: string | undefined): string =>
  (value ?? "").split(";")[0]?.trim().toLowerCase() ?? "";

export function createInboxService(
  deps: ExchangeDeps,
  processJob: () => JobDefinition<{ tenantId: string; uploadId: string }>,
) {
  const { database, clock } = deps;
  const { db } = database;

  const keyHash = (connectionId: string, key: string) =>
    sha256(`exchange-upload-key\n${connectionId}\n${key}`);

  const replayOf = (
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

  return {
    /** Checks that need no body: connection, content type, key, declared length. */
    async precheck(
      principal: Principal,
      connectionId: string,
      headers: {
        contentType?: string | undefined;
        key?: string | string[] | undefined;
        contentLength?: string | undefined;
      },
    ) {
      const connection = await requirePartnerConnection(db, principal, connectionId);
      if (!acceptedTypes.has(mediaType(headers.contentType))) {
        throw invalid(
          "Content-Type must be application/edifact or application/octet-stream.",
          "/headers/content-type",
        );
      }
      const key = headers.key;
      if (typeof key !== "string" || !uploadKeyPattern.test(key)) {
        throw invalid(
          "Idempotency-Key is required: 1–200 characters of letters, digits, '.', '_', ':' and '-'.",
          "/headers/idempotency-key",
        );
      }
      if (headers.contentLength !== undefined && Number(headers.contentLength) > deps.maxPayloadBytes) {
        throw new AppError("ERR_B2B_EXCHANGE_PAYLOAD_TOO_LARGE", "The payload exceeds 16 MiB.");
      }
      return { connection, key };
    },

    /**
     * Streams the body into blob storage while hashing and scanning it, then records the upload
     * and its processing job in one transaction. A body over the limit, an interrupted body or
     * one that is not exactly one interchange leaves nothing stored and the key free.
     */
    async upload(
      principal: Principal,
      connection: { id: string; tenant_id: string; active_revision: number },
      key: string,
      body: Readable | AsyncIterable<Uint8Array>,
    ): Promise<UploadOutcome> {
      const tenantId = connection.tenant_id;
      const hash = keyHash(connection.id, key);
      const known = await repo.findUploadByKey(db, tenantId, connection.id, hash);
      const scanner = new InterchangeScanner();
      const blobId = deps.newId();
      let stored;
      try {
        stored = await writeBlobStream(db, clock, {
          tenantId,
          id: blobId,
          contentType: "application/edifact",
          source: body,
          maxBytes: deps.maxPayloadBytes,
          observe: (bytes) => {
            scanner.push(bytes);
          },
          // A replay only needs the hash of the bytes, not another copy of them.
          store: known === undefined,
        });
      } catch (error) {
        if (error instanceof BlobTooLargeError) {
          throw new AppError("ERR_B2B_EXCHANGE_PAYLOAD_TOO_LARGE", "The payload exceeds 16 MiB.");
        }
        throw error;
      }
      if (known) return replayOf(known, stored.sha256);
      const scan = scanner.finish();
      if (!scan.ok) {
        await deleteBlob(db, tenantId, blobId);
        throw invalid(scan.reason ?? "The body is not exactly one interchange.", "/body");
      }
      const uploadId = deps.newId();
      const now = clock.now();
      try {
        const outcome = await database.transaction(
          async (trx): Promise<UploadOutcome | { existing: true }> => {
            const inserted = await repo.insertUpload(trx, {
              tenant_id: tenantId,
              id: uploadId,
              connection_id: connection.id,
              key_hash: hash,
              blob_id: blobId,
              byte_count: stored.byteCount,
              sha256: stored.sha256,
              interchange_id: scan.interchangeId ?? null,
              profile_revision: connection.active_revision,
              status: "received",
              error: null,
              principal_id: principal.id,
              created_at: now,
              updated_at: now,
              completed_at: null,
            });
            if (!inserted) return { existing: true };
            await recordAudit(trx, {
              tenantId,
              id: deps.newId(),
              type: "upload.received",
              occurredAt: now,
              principalId: principal.id,
              connectionId: connection.id,
              uploadId,
              byteCount: stored.byteCount,
            });
            await deps.jobs.enqueue(
              trx,
              processJob(),
              { tenantId, uploadId },
              { key: `exchange.process:${uploadId}`, tenantId },
            );
            return {
              status: 202,
              body: {
                uploadId,
                ...(scan.interchangeId ? { interchangeId: scan.interchangeId } : {}),
                status: "received",
                replay: false,
              },
            };
          },
        );
        if ("existing" in outcome) {
          // A concurrent request with the same key committed first: answer as its replay.
          await deleteBlob(db, tenantId, blobId);
          const winner = await repo.findUploadByKey(db, tenantId, connection.id, hash);
          if (!winner) throw new AppError("ERR_B2B_EXCHANGE_CONFLICT", "The upload state changed; retry.");
          return replayOf(winner, stored.sha256);
        }
        return outcome;
      } catch (error) {
        await deleteBlob(db, tenantId, blobId).catch(() => undefined);
        throw error;
      }
    },
  };
}

export type InboxService = ReturnType<typeof createInboxService>;
