import type { Readable } from "node:stream";
import { InterchangeScanner } from "../../edifact/index.js";
import {
  BlobTooLargeError,
  defaultChunkBytes,
  deleteBlob,
  writeBlobStream,
  type StoredBlob,
} from "../../platform/blobs/index.js";
import type { DeferredCredential, Principal } from "../../platform/auth/index.js";
import { sha256 } from "../../platform/crypto/index.js";
import { createStatementBatcher } from "../../platform/db/statement-batcher.js";
import { AppError } from "../../platform/errors/app-error.js";
import { createJobNotifier, defaultMaxAttempts, type JobDefinition } from "../../platform/jobs/index.js";
import type { ExchangeDeps } from "./exchange.deps.js";
import * as repo from "./exchange.repository.js";
import type { UploadStatus } from "./exchange.tables.js";
import { createInboxBacklog } from "./inbox-backlog.js";
import {
  connectionIdOf,
  hiddenConnection,
  mayUseConnection,
  requirePartnerConnection,
} from "./partner-access.js";

/** CONTRACT §4 / spec limits: ≤ 200 characters of letters, digits, `.`, `_`, `:`, `-`. */
export const uploadKeyPattern = /^[A-Za-z0-9._:-]{1,200}$/;
/**
 * An upload declaring at most this many bytes has its partner key checked by its accept statement
 * (one round trip for the whole request); larger ones are authenticated before their body is read.
 */
export const deferredUploadBytes = 64 * 1024;
const acceptedTypes = new Set(["application/edifact", "application/octet-stream"]);

/** Headers of an upload request that the checks read. */
export interface UploadHeaders {
  contentType?: string | undefined;
  key?: string | string[] | undefined;
  contentLength?: string | undefined;
}

export interface UploadOutcome {
  status: 200 | 202;
  body: { uploadId: string; interchangeId?: string; status: UploadStatus; replay: boolean };
}

const invalid = (detail: string, pointer: string) =>
  new AppError("ERR_B2B_EXCHANGE_INVALID_REQUEST", detail, { errors: [{ pointer, message: detail }] });
const tooLarge = () => new AppError("ERR_B2B_EXCHANGE_PAYLOAD_TOO_LARGE", "The payload exceeds 16 MiB.");
/** The synchronous check's refusal: the body is not exactly one interchange. */
const notOneInterchange = (reason: string | undefined) =>
  invalid(reason ?? "The body is not exactly one interchange.", "/body");

const toBuffer = (part: Uint8Array | string): Buffer =>
  typeof part === "string"
    ? Buffer.from(part, "utf8")
    : Buffer.isBuffer(part)
      ? part
      : Buffer.from(part.buffer, part.byteOffset, part.byteLength);

/** A small body, whole (the caller bounds it by its declared length). */
async function readAll(body: AsyncIterable<Uint8Array | string>, maxBytes: number): Promise<Buffer> {
  const parts: Buffer[] = [];
  let total = 0;
  for await (const part of body) {
    const bytes = toBuffer(part);
    total += bytes.length;
    if (total > maxBytes) throw tooLarge();
    parts.push(bytes);
  }
  return parts.length === 1 && parts[0] ? parts[0] : Buffer.concat(parts, total);
}

/** The media type without parameters, lower case. */
export const mediaType = (value: string | undefined): string =>
  (value ?? "").split(";")[0]?.trim().toLowerCase() ?? "";

export function createInboxService(
  deps: ExchangeDeps,
  processJob: () => JobDefinition<{ tenantId: string; uploadId: string }>,
) {
  const { database, clock } = deps;
  const { db } = database;
  /** Unprocessed uploads per tenant and in all: over a bound, uploads are refused (503). */
  const backlog = createInboxBacklog({
    db,
    clock,
    jobName: processJob().name,
    limits: deps.backlogLimits,
  });
  /** NOTIFY after the commit, coalesced: one in flight at a time however many uploads land. */
  const wakeWorkers = createJobNotifier(database);
  /** A body up to this size is stored by the upload's own statement. */
  const smallBytes = Math.min(defaultChunkBytes, deps.maxPayloadBytes);
  /** Small uploads with their key checked by the statement: those arriving together share one. */
  const checkedUploads = createStatementBatcher<repo.CheckedUpload, repo.CheckedUploadOutcome>({
    lanes: database.tuning.statementLanes,
    maxItems: 32,
    runItems: (uploads) => repo.acceptCheckedUploads(database, uploads),
  });

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
      stored = { id: blobId, byteCount: small.length, sha256: sha256(small) };
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
          writesInFlight: database.tuning.chunkWritesInFlight,
        });
      } catch (error) {
        if (error instanceof BlobTooLargeError) {
          throw tooLarge();
        }
        throw error;
      }
      if (known) return replayOf(known, stored.sha256);
    }
    const scan = scanner.finish();
    if (!scan.ok) {
      if (!small) await deleteBlob(db, tenantId, blobId);
      throw notOneInterchange(scan.reason);
    }
    const upload = newUpload(connection.id, hash, blobId, stored, scan.interchangeId);
    const result = await repo
      .acceptUpload(
        database,
        upload,
        { tenantId, profileRevision: connection.active_revision, principalId: principal.id },
        small,
      )
      .catch(async (error: unknown) => {
        if (!small) await deleteBlob(db, tenantId, blobId).catch(() => undefined);
        throw error;
      });
    if (!result.inserted && !small) await deleteBlob(db, tenantId, blobId);
    return outcomeOf(result, tenantId, upload);
  }

  /** The upload row, its audit event and its processing job, as the accept statement takes them. */
  function newUpload(
    connectionId: string,
    keyHash: Buffer,
    blobId: string,
    stored: Pick<StoredBlob, "byteCount" | "sha256">,
    interchangeId: string | undefined,
  ): repo.AcceptedUpload {
    const id = deps.newId();
    const job = processJob();
    return {
      id,
      connectionId,
      keyHash,
      blobId,
      byteCount: stored.byteCount,
      sha256: stored.sha256,
      interchangeId: interchangeId ?? null,
      at: clock.now(),
      auditId: deps.newId(),
      job: {
        id: deps.newId(),
        name: job.name,
        // No unique job key: the statement inserts the job only with the new upload row, whose
        // key already makes it one per upload (and spares an index entry per upload).
        key: null,
        maxAttempts: job.maxAttempts ?? defaultMaxAttempts,
      },
    };
  }

  /** 202 for a new upload; otherwise the key is taken (found by the statement, or a concurrent request committed first). */
  async function outcomeOf(
    result: repo.AcceptResult,
    tenantId: string,
    upload: repo.AcceptedUpload,
  ): Promise<UploadOutcome> {
    if (result.inserted) {
      backlog.accepted(tenantId);
      wakeWorkers();
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
  }

  /** Content type and key (CONTRACT §4), and a declared length over the limit. */
  function checkHeaders(headers: UploadHeaders): string {
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
      throw tooLarge();
    }
    return key;
  }

  return {
    /** Whether this API key streams as many uploads as it may (the next one is 429). */
    atStreamLimit: (credentialId: string): boolean =>
      (streaming.get(credentialId) ?? 0) >= deps.maxConcurrentUploads,

    /**
     * Whether a small upload may have its key checked by its accept statement as far as the
     * backlog goes: no bound is reached anywhere (otherwise its tenant must be known first).
     */
    backlogClear: (): Promise<boolean> => backlog.clear(),

    /**
     * Checks that need no body: connection, content type, key, declared length; then the backlog
     * of the connection's tenant and of the service (503 with Retry-After over a bound).
     */
    async precheck(principal: Principal, connectionId: string, headers: UploadHeaders) {
      const connection = await requirePartnerConnection(database, principal, connectionId);
      const key = checkHeaders(headers);
      await backlog.admit(connection.tenant_id);
      return { connection, key };
    },

    /**
     * A small upload (its declared length at most `deferredUploadBytes`) whose partner key is
     * checked by the accept statement itself: the body is read, scanned and stored with the
     * upload, its audit event and its job in one round trip. Whatever is refused before that
     * statement — a bad header, a body that is not one interchange — first checks the key and the
     * connection the ordinary way, so 401 and 404 keep their precedence over the request's own
     * faults. `admitted` sees the principal once the statement has accepted the key.
     */
    async uploadChecked(
      credential: DeferredCredential,
      connectionId: string,
      headers: UploadHeaders,
      body: AsyncIterable<Uint8Array | string>,
      admitted: (principal: Principal) => void,
    ): Promise<UploadOutcome> {
      let key: string;
      let bytes: Buffer;
      let interchangeId: string | undefined;
      let id: string;
      try {
        id = connectionIdOf(connectionId);
        key = checkHeaders(headers);
        bytes = await readAll(body, deps.maxPayloadBytes);
        const scanner = new InterchangeScanner();
        scanner.push(bytes);
        const scan = scanner.finish();
        if (!scan.ok) throw notOneInterchange(scan.reason);
        interchangeId = scan.interchangeId;
      } catch (error) {
        const principal = await credential.authenticate();
        await requirePartnerConnection(database, principal, connectionId);
        admitted(principal);
        throw error;
      }
      const hash = keyHash(id, key);
      const stored = { byteCount: bytes.length, sha256: sha256(bytes) };
      return exclusively(`${id}:${hash.toString("hex")}`, async () => {
        const upload = newUpload(id, hash, deps.newId(), stored, interchangeId);
        const check = credential.rowCheck(null);
        const { result, row } = await checkedUploads.run({ check, upload, bytes });
        const principal = credential.settle(check, row);
        const connection = {
          tenant_id: row.connection_tenant_id ?? null,
          partner_id: row.connection_partner_id ?? null,
          status: row.connection_status ?? null,
        };
        if (!mayUseConnection(principal, id, connection)) throw hiddenConnection();
        admitted(principal);
        return outcomeOf(result, principal.tenant.id, upload);
      });
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
