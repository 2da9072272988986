/**
 * The reference mailbox worker of rules/interface A rule 6 on top of the partner client: list, claim one
 * entry, stream its payload to a temporary file while counting and hashing, check EOF, size,
 * SHA-256 and the trailer, fsync and rename into place, then acknowledge with the same token
 * (retried after an uncertain network failure), and only then claim the next entry. Nothing is
 * acknowledged after any failure. And uploading a file. Imports only protocol/ and the SDK.
 */
import { createHash, randomUUID } from "node:crypto";
import { constants, createReadStream } from "node:fs";
import { access, open, rename, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { makeDirectory } from "./local-files.js";
import {
  LocalStorageError,
  PartnerApiError,
  PartnerNetworkError,
  type Claim,
  type MailboxItem,
  type PartnerClient,
  type PayloadRead,
} from "./partner.js";

/** Rule 2: a message is processed only after EOF, matching size and SHA-256, and a verified trailer. */
export function integrityProblem(read: PayloadRead): string | undefined {
  if (read.bytes !== read.expectedSize) return "size mismatch";
  if (read.sha256 !== read.expectedSha256.toLowerCase()) return "SHA-256 mismatch";
  if (read.trailer !== "verified") return `trailer ${read.trailer ?? "missing"}`;
  return undefined;
}

/** What the worker reports: only status, stable code, correlation, ids and time (rules/interface A). */
export interface SyncEvent {
  time: string;
  event: "stored" | "already-stored" | "acknowledged" | "skipped" | "failed" | "idle";
  connectionId: string;
  deliveryAttemptId?: string;
  status?: number;
  code?: string;
  correlationId?: string;
}

export interface SyncOptions {
  client: PartnerClient;
  outDir: string;
  /** Process what is listed now and return (default), or keep polling. */
  once?: boolean;
  pollMs?: number;
  signal?: AbortSignal;
  /** Acknowledge attempts after an uncertain network failure (same token each time). */
  acknowledgeAttempts?: number;
  onEvent?: (event: SyncEvent) => void;
  /** Before each entry and after each acknowledge: entries so far and the payload bytes acknowledged. */
  onProgress?: (state: { done: number; failed: number; current?: string; bytes: number }) => void;
  /**
   * File names: `delivery` (default) `<deliveryAttemptId>.<TYPE>.edi`; `reference`
   * `<interchange reference>-<message reference>.<TYPE>.edi` (Hanse numbers outbound interchanges
   * uniquely), falling back to the delivery name when the listing lacks either reference.
   */
  naming?: "delivery" | "reference";
}

export interface SyncSummary {
  acknowledged: number;
  failed: number;
}

/**
 * A delivery attempt id is a UUID. The worker builds file names and request paths from it, so an
 * entry whose id is anything else (a hostile or impersonated server listing `../../x`) is never
 * claimed, read or written.
 */
const deliveryIdPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A reference as a file name part: letters, digits, `-` and `_` only (never a path). */
const safeReference = (value: string | undefined): string | undefined => {
  const cleaned = value?.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 35);
  return cleaned === undefined || cleaned === "" ? undefined : cleaned;
};

const fileFor = (options: SyncOptions, item: MailboxItem) => {
  const type = item.messageType.replace(/[^A-Z]/g, "");
  const interchange = safeReference(item.interchangeId);
  const message = safeReference(item.messageReference);
  const stem =
    options.naming === "reference" && interchange !== undefined && message !== undefined
      ? `${interchange}-${message}`
      : item.deliveryAttemptId;
  return join(options.outDir, `${stem}.${type}.edi`);
};

/**
 * True when `path` is a file of exactly `size` bytes with this SHA-256 (hex): what an earlier run
 * stored for the entry. One `stat` of the entry's own name, so a directory of many stored files
 * costs nothing more per entry.
 */
async function fileHolds(path: string, size: number, sha256: string): Promise<boolean> {
  const info = await stat(path).catch(() => undefined);
  if (!info?.isFile() || info.size !== size) return false;
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest("hex") === sha256.toLowerCase();
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    });
  });

/** Runs the worker loop of rules/interface A rule 6 against one connection. */
export async function syncMailbox(options: SyncOptions): Promise<SyncSummary> {
  const { client, outDir } = options;
  const summary: SyncSummary = { acknowledged: 0, failed: 0 };
  const emit = (event: Omit<SyncEvent, "time" | "connectionId">) =>
    options.onEvent?.({ time: new Date().toISOString(), connectionId: client.connectionId, ...event });
  const failure = (id: string, error: unknown) => {
    summary.failed++;
    if (error instanceof PartnerApiError) {
      emit({
        event: "failed",
        deliveryAttemptId: id,
        status: error.status,
        code: error.code,
        correlationId: error.correlationId,
      });
    } else if (error instanceof PartnerNetworkError) {
      emit({ event: "failed", deliveryAttemptId: id, code: "NETWORK", correlationId: error.correlationId });
    } else {
      emit({
        event: "failed",
        deliveryAttemptId: id,
        code: error instanceof LocalStorageError ? "LOCAL_STORAGE" : "INTEGRITY",
      });
    }
  };
  await makeDirectory(outDir).catch((error: unknown) => {
    const code = (error as NodeJS.ErrnoException).code ?? "error";
    throw new LocalStorageError(`the output directory cannot be created (${code})`, { cause: error });
  });
  await access(outDir, constants.W_OK).catch(() => {
    throw new LocalStorageError("the output directory is not writable");
  });

  const skipped = new Set<string>();
  const progress = { bytes: 0 };
  while (!options.signal?.aborted) {
    const page = await client.list({ limit: 100 });
    const items = page.items.filter((i) => !skipped.has(i.deliveryAttemptId));
    if (items.length === 0) {
      emit({ event: "idle" });
      if (options.once !== false) return summary;
      await sleep(options.pollMs ?? 5000, options.signal);
      skipped.clear();
      continue;
    }
    // Rule 7: in the returned order; rule 6: one entry at a time.
    for (const item of items) {
      if (options.signal?.aborted) break;
      const id = item.deliveryAttemptId;
      if (typeof id !== "string" || !deliveryIdPattern.test(id)) {
        skipped.add(id);
        summary.failed++;
        emit({ event: "failed", code: "INVALID_ENTRY" });
        continue;
      }
      options.onProgress?.({ done: summary.acknowledged, failed: summary.failed, current: id, ...progress });
      let claim: Claim;
      try {
        claim = await client.claim(id);
      } catch (error) {
        // Claimed elsewhere or not due: leave it; never a second claim while a lease is active.
        skipped.add(id);
        if (!(error instanceof PartnerApiError && error.status === 409)) failure(id, error);
        else
          emit({
            event: "skipped",
            deliveryAttemptId: id,
            status: 409,
            code: error.code,
            correlationId: error.correlationId,
          });
        continue;
      }
      try {
        await storeAndAcknowledge(options, item, claim, emit, summary);
        progress.bytes += item.payloadSize;
        options.onProgress?.({ done: summary.acknowledged, failed: summary.failed, ...progress });
      } catch (error) {
        skipped.add(id);
        failure(id, error);
        if (error instanceof LocalStorageError) throw error;
      }
    }
  }
  return summary;
}

async function storeAndAcknowledge(
  options: SyncOptions,
  item: MailboxItem,
  claim: Claim,
  emit: (event: Omit<SyncEvent, "time" | "connectionId">) => void,
  summary: SyncSummary,
): Promise<void> {
  const { client } = options;
  const id = item.deliveryAttemptId;
  // Idempotent processing: a file an earlier run stored under the entry's name (and then lost the
  // acknowledge's answer) is not written twice when it holds exactly the listed payload. The
  // acknowledge still needs a verified read under this lease, so the payload is read once and its
  // bytes are dropped. Anything else under that name (damaged, truncated) is replaced by one
  // download, decided from the listing before any read.
  const target = fileFor(options, item);
  let read: PayloadRead | undefined;
  if (await fileHolds(target, item.payloadSize, item.payloadSha256)) {
    read = await client.readPayload(id, claim.claimToken, async () => undefined);
    const problem = integrityProblem(read);
    if (problem) throw new Error(problem);
    // The server now vouches for other bytes than it listed: store what it sends.
    const same =
      read.expectedSize === item.payloadSize &&
      read.expectedSha256.toLowerCase() === item.payloadSha256.toLowerCase();
    if (!same) read = undefined;
  }
  if (read) {
    emit({ event: "already-stored", deliveryAttemptId: id, status: 200, correlationId: read.correlationId });
  } else {
    read = await download(options, item, claim);
    emit({ event: "stored", deliveryAttemptId: id, status: 200, correlationId: read.correlationId });
  }
  // Rule 5: an uncertain network failure is retried with the same token.
  const attempts = options.acknowledgeAttempts ?? 4;
  for (let attempt = 1; ; attempt++) {
    try {
      const receipt = await client.acknowledge(id, claim.claimToken);
      summary.acknowledged++;
      emit({
        event: "acknowledged",
        deliveryAttemptId: id,
        status: 200,
        correlationId: receipt.correlationId,
      });
      return;
    } catch (error) {
      if (!(error instanceof PartnerNetworkError) || attempt >= attempts) throw error;
      await sleep(200 * 2 ** (attempt - 1), options.signal);
    }
  }
}

/**
 * Streams the payload into a temporary file while counting and hashing, checks it, fsyncs it and
 * renames it into place (over `replacing`, the damaged file of an earlier run, when there is one).
 */
async function download(options: SyncOptions, item: MailboxItem, claim: Claim): Promise<PayloadRead> {
  const { client, outDir } = options;
  const id = item.deliveryAttemptId;
  const partial = join(outDir, `.${id}.${randomUUID()}.partial`);
  let handle;
  try {
    handle = await open(partial, "wx", 0o600);
  } catch (error) {
    throw new LocalStorageError("cannot create a file in the output directory", { cause: error });
  }
  let read: PayloadRead;
  try {
    read = await client.readPayload(id, claim.claimToken, async (chunk) => {
      try {
        await handle.write(chunk);
      } catch (error) {
        throw new LocalStorageError("writing the payload failed", { cause: error });
      }
    });
    const problem = integrityProblem(read);
    if (problem) throw new Error(problem);
    try {
      await handle.sync();
    } catch (error) {
      throw new LocalStorageError("fsync failed", { cause: error });
    }
  } catch (error) {
    await handle.close().catch(() => undefined);
    await rm(partial, { force: true });
    throw error;
  }
  await handle.close();
  const target = fileFor(options, item);
  try {
    // Atomic, also over a damaged file an earlier run left under the entry's name.
    await rename(partial, target);
    const dir = await open(outDir, "r");
    await dir.sync().catch(() => undefined);
    await dir.close();
    if ((await stat(target)).size !== read.bytes) throw new Error("stored size differs");
  } catch (error) {
    await rm(partial, { force: true });
    throw new LocalStorageError("storing the payload failed", { cause: error });
  }
  return read;
}

/** Streams a file as one upload; the key defaults to one derived from its SHA-256 (safe retries). */
export async function uploadFile(client: PartnerClient, path: string, idempotencyKey?: string) {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  const key = idempotencyKey ?? `sha256-${hash.digest("hex")}`;
  const size = (await stat(path)).size;
  return client.upload(createReadStream(path), key, size);
}
