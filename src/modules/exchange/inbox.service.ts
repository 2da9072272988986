import { createHash } from "node:crypto";
import type { Readable } from "node:stream";
import {
  BlobTooLargeError,
  defaultChunkBytes,
  deleteBlob,
  writeBlobStream,
  type StoredBlob,
} from "../../platform/blobs/index.js";
import type { Principal } from "../../platform/auth/index.js";
import { sha256 } from "../../platform/crypto/index.js";
import { AppError } from "../../platform/http/app-error.js";
import { createJobNotifier, defaultMaxAttempts, type JobDefinition } from "../../platform/jobs/index.js";
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

const toBuffer = (part: Uint8Array | string): Buffer =>
  typeof part === "string"
    ? Buffer.from(part, "utf8")
    : Buffer.isBuffer(part)
      ? part
      : Buffer.from(part.buffer, part.byteOffset, part.byteLength);

/** The media type without parameters, lower case. */
export const mediaType = (value: string | undefined): string =>
  (value ?? "").split(";")[0]?.trim().toLowerCase() ?? "";

export function createInboxService(
  deps: ExchangeDeps,
  processJob: () => JobDefinition<{ tenantId: string; uploadId: string }>,
) {
  const { database, clock } = deps;
  const { db } = database;
  /** NOTIFY after the commit, coalesced: one in flight at a time however many uploads land. */
  const wakeWorkers = createJobNotifier(database);
  /** A body up to this size is stored by the upload's own statement. */
  const smallBytes = Math.min(defaultChunkBytes, deps.maxPayloadBytes);

  const keyHash = (connectionId: string, key: string) =>
    sha256(`exchange-upload-key\n${connectionId}\n${key}`);

  /**
   * Uploads of this process in progress, by connection and key hash. CONTRACT §4: a retry that
   * arrives while the first upload with its key is still streaming waits for it (and then replays
   * or conflicts) instead of racing it. Across processes the key's unique index still allows only
   * one upload; there the later of two concurrent streams gets the replay or the 409.
   */
  const inProgress = new Map<string, Promise<void>>();
  /** Uploads streaming in this process, per API key (credential id). */
  const streaming = new Map<string, number>();
  async function exclusively<T>(slot: string, run: () => Promise<T>): Promise<T> {
    for (let first = inProgress.get(slot); first; first = inProgress.get(slot)) {
      await first;
    }
    let done = (): void => undefined;
    inProgress.set(
      slot,
      new Promise<void>((resolve) => {
        done = resolve;
      }),
    );
    try {
      return await run();
    } finally {
      inProgress.delete(slot);
      done();
    }
  }

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

  /** The upload itself, once no other upload with its key is in progress here. */
  async function uploadOnce(
    principal: Principal,
    connection: { id: string; tenant_id: string; active_revision: number },
    hash: Buffer,
    body: Readable | AsyncIterable<Uint8Array>,
  ): Promise<UploadOutcome> {
    const tenantId = connection.tenant_id;
    const scanner = new InterchangeScanner();
    const blobId = deps.newId();
    const iterator = (body as AsyncIterable<Uint8Array | string>)[Symbol.asyncIterator]();

    // Up to one chunk is read before anything is written.
    const head: Buffer[] = [];
    let headBytes = 0;
    let ended = false;
    while (headBytes <= smallBytes) {
      const next = await iterator.next();
      if (next.done) {
        ended = true;
        break;
      }
      const bytes = toBuffer(next.value);
      head.push(bytes);
      headBytes += bytes.length;
    }

    let stored: StoredBlob;
    let small: Buffer | undefined;
    if (ended) {
      small = Buffer.concat(head, headBytes);
      scanner.push(small);
      stored = { id: blobId, byteCount: small.length, sha256: createHash("sha256").update(small).digest() };
    } else {
      const known = await repo.findUploadByKey(db, tenantId, connection.id, hash);
      const rest: AsyncIterable<Uint8Array | string> = { [Symbol.asyncIterator]: () => iterator };
      try {
        stored = await writeBlobStream(db, clock, {
          tenantId,
          id: blobId,
          contentType: "application/edifact",
          source: (async function* () {
            yield* head;
            yield* rest;
          })(),
          maxBytes: deps.maxPayloadBytes,
          observe: (bytes) => {
            scanner.push(bytes);
          },
          // A replay only needs the hash of the bytes, not another copy of them.
          store: known === undefined,
          prepared: database.prepared,
        });
      } catch (error) {
        if (error instanceof BlobTooLargeError) {
          throw new AppError("ERR_B2B_EXCHANGE_PAYLOAD_TOO_LARGE", "The payload exceeds 16 MiB.");
        }
        throw error;
      }
      if (known) return replayOf(known, stored.sha256);
    }
    const scan = scanner.finish();
    if (!scan.ok) {
      if (!small) await deleteBlob(db, tenantId, blobId);
      throw invalid(scan.reason ?? "The body is not exactly one interchange.", "/body");
    }
    const uploadId = deps.newId();
    const job = processJob();
    const result = await repo
      .acceptUpload(
        database,
        {
          tenantId,
          id: uploadId,
          connectionId: connection.id,
          keyHash: hash,
          blobId,
          byteCount: stored.byteCount,
          sha256: stored.sha256,
          interchangeId: scan.interchangeId ?? null,
          profileRevision: connection.active_revision,
          principalId: principal.id,
          at: clock.now(),
          auditId: deps.newId(),
          job: {
            id: deps.newId(),
            name: job.name,
            // No unique job key: the statement inserts the job only with the new upload row, whose
            // key already makes it one per upload (and spares an index entry per upload).
            key: null,
            payload: JSON.stringify({ tenantId, uploadId }),
            maxAttempts: job.maxAttempts ?? defaultMaxAttempts,
          },
        },
        small,
      )
      .catch(async (error: unknown) => {
        if (!small) await deleteBlob(db, tenantId, blobId).catch(() => undefined);
        throw error;
      });
    if (result.inserted) {
      wakeWorkers();
      return {
        status: 202,
        body: {
          uploadId,
          ...(scan.interchangeId ? { interchangeId: scan.interchangeId } : {}),
          status: "received",
          replay: false,
        },
      };
    }
    // The key is taken (found by the statement, or a concurrent request committed first).
    if (!small) await deleteBlob(db, tenantId, blobId);
    const winner = result.existing ?? (await repo.findUploadByKey(db, tenantId, connection.id, hash));
    if (!winner) throw new AppError("ERR_B2B_EXCHANGE_CONFLICT", "The upload state changed; retry.");
    return replayOf(winner, stored.sha256);
  }

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
      const connection = await requirePartnerConnection(database, principal, connectionId);
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
     * Streams the body into blob storage while hashing and scanning it, then records the upload,
     * its audit event and its processing job in one statement. A body that fits one chunk is read
     * first and stored by that same statement (one round trip for the whole upload). A body over
     * the limit, an interrupted body or one that is not exactly one interchange leaves nothing
     * stored and the key free.
     */
    async upload(
      principal: Principal,
      connection: { id: string; tenant_id: string; active_revision: number },
      key: string,
      body: Readable | AsyncIterable<Uint8Array>,
    ): Promise<UploadOutcome> {
      // Each stream in progress holds buffers: one key may not hold memory without bound.
      const holder = principal.credentialId;
      const streams = streaming.get(holder) ?? 0;
      if (streams >= deps.maxConcurrentUploads) {
        throw new AppError(
          "ERR_B2B_EXCHANGE_RATE_LIMITED",
          "Too many uploads in progress for this API key.",
          {
            headers: { "retry-after": "1" },
          },
        );
      }
      streaming.set(holder, streams + 1);
      try {
        const hash = keyHash(connection.id, key);
        return await exclusively(`${connection.id}:${hash.toString("hex")}`, () =>
          uploadOnce(principal, connection, hash, body),
        );
      } finally {
        const left = (streaming.get(holder) ?? 1) - 1;
        if (left > 0) streaming.set(holder, left);
        else streaming.delete(holder);
      }
    },
  };
}

export type InboxService = ReturnType<typeof createInboxService>;
