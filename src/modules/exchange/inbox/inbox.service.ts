import type { Readable } from "node:stream";
import { InterchangeScanner } from "../../../edifact/index.js";
import {
  BlobTooLargeError,
  defaultChunkBytes,
  deleteBlob,
  writeBlobStream,
  type StoredBlob,
} from "../../../platform/blobs/index.js";
import type { DeferredCredential, Principal } from "../../../platform/auth/index.js";
import { sha256 } from "../../../platform/crypto/index.js";
import { createStatementBatcher } from "../../../platform/db/statement-batcher.js";
import { AppError } from "../../../platform/errors/app-error.js";
import { createJobNotifier, enqueuingTraceContext } from "../../../platform/jobs/index.js";
import type { ExchangeDeps } from "../exchange.deps.js";
import type { UploadStatus } from "../exchange.tables.js";
import {
  connectionIdOf,
  hiddenConnection,
  mayUseConnection,
  requirePartnerConnection,
} from "../partner-access.js";
import { processUpload } from "../processing/index.js";
import { createInboxBacklog, type BacklogLimits } from "./inbox-backlog.js";
import * as repo from "./inbox.repository.js";
import {
  checkHeaders,
  notOneInterchange,
  readAll,
  toBuffer,
  tooLarge,
  type UploadHeaders,
} from "./upload-checks.js";
import { createUploadSlots } from "./upload-slots.js";

export interface UploadOutcome {
  status: 200 | 202;
  body: { uploadId: string; interchangeId?: string; status: UploadStatus; replay: boolean };
}

/** What the inbox needs besides the module's common dependencies. */
export interface InboxSettings {
  /** Uploads one API key may stream at once in this process (HANSE_PARTNER_MAX_CONCURRENT_UPLOADS). */
  maxConcurrentUploads: number;
  /** Unprocessed uploads over which the inbox answers 503 (HANSE_INBOX_MAX_BACKLOG*). */
  backlogLimits: BacklogLimits;
}

/** The partner's upload: admission, streaming into storage, and the one accept statement. */
export function createInboxService(deps: ExchangeDeps & InboxSettings) {
  const { database, clock } = deps;
  const { db } = database;
  /** Unprocessed uploads per tenant and in all: over a bound, uploads are refused (503). */
  const backlog = createInboxBacklog({
    db,
    clock,
    jobName: processUpload.name,
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

  /** One upload per key at a time, and a bounded number of streams per API key, in this process. */
  const slots = createUploadSlots(deps.maxConcurrentUploads);

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
        name: processUpload.name,
        // No unique job key: the statement inserts the job only with the new upload row, whose
        // key already makes it one per upload (and spares an index entry per upload).
        key: null,
        maxAttempts: processUpload.maxAttempts,
        // The request's trace: the processing job's log lines and calls continue it.
        traceContext: enqueuingTraceContext(),
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

  return {
    /** Whether this API key streams as many uploads as it may (the next one is 429). */
    atStreamLimit: (credentialId: string): boolean => slots.atStreamLimit(credentialId),

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
      const key = checkHeaders(headers, deps.maxPayloadBytes);
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
        key = checkHeaders(headers, deps.maxPayloadBytes);
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
      return slots.exclusively(`${id}:${hash.toString("hex")}`, async () => {
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
      const hash = keyHash(connection.id, key);
      return slots.stream(principal.credentialId, () =>
        slots.exclusively(`${connection.id}:${hash.toString("hex")}`, () =>
          uploadOnce(principal, connection, hash, body),
        ),
      );
    },
  };
}

export type InboxService = ReturnType<typeof createInboxService>;
