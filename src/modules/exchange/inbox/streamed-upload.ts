import type { Readable } from "node:stream";
import { InterchangeScanner } from "../../../edifact/index.js";
import {
  BlobTooLargeError,
  defaultChunkBytes,
  deleteBlob,
  writeBlobStream,
  type StoredBlob,
} from "../../../platform/blobs/index.js";
import type { Principal } from "../../../platform/auth/index.js";
import { sha256 } from "../../../platform/crypto/index.js";
import type { ExchangeDeps } from "../exchange.deps.js";
import * as repo from "./inbox.repository.js";
import { replayOf, type UploadAcceptance, type UploadOutcome } from "./upload-acceptance.js";
import { notOneInterchange, toBuffer, tooLarge } from "./upload-checks.js";

/**
 * An upload whose key was checked before its body is read: a body that fits one chunk is read
 * first and stored by the accept statement; a longer one is streamed into blob storage while it
 * is hashed and scanned, then accepted.
 */
export function createStreamedUpload(
  deps: Pick<ExchangeDeps, "database" | "clock" | "newId" | "maxPayloadBytes">,
  acceptance: UploadAcceptance,
) {
  const { database, clock } = deps;
  const { db } = database;
  /** A body up to this size is stored by the upload's own statement. */
  const smallBytes = Math.min(defaultChunkBytes, deps.maxPayloadBytes);

  /** The upload itself, once no other upload with its key is in progress here. */
  return async function uploadOnce(
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
    const upload = acceptance.newUpload(connection.id, hash, blobId, stored, scan.interchangeId, {
      apiKeyId: principal.credentialId,
      origin: principal.origin,
    });
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
    return acceptance.outcomeOf(result, tenantId, upload);
  };
}
