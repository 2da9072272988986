import type { FastifyReply } from "fastify";
import { headers } from "@hanse/client/protocol";
import { sql, type Kysely, type Transaction } from "kysely";
import type { Clock } from "../clock/clock.js";
import type { Database } from "../db/database.js";
import { hmacSha256 } from "../crypto/secrets.js";
import { AppError } from "../errors/app-error.js";
import type { HanseTables } from "../db/tables.js";

interface IdempotencyRecordsTable {
  tenant_id: string;
  endpoint: string;
  key_hash: Buffer;
  fingerprint: Buffer;
  status_code: number;
  response_body: string;
  response_headers: unknown;
  created_at: Date;
  expires_at: Date;
}
export interface IdempotencyTables {
  idempotency_records: IdempotencyRecordsTable;
}

declare module "../db/tables.js" {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface HanseTables extends IdempotencyTables {}
}

export interface StoredResponse {
  status: number;
  /** The serialized body, replayed byte for byte. */
  body: string;
  headers: Record<string, string>;
}

export interface IdempotentOutcome extends StoredResponse {
  replay: boolean;
}

export interface IdempotencyScope {
  tenantId: string;
  endpoint: string;
  key: string;
  /** Canonical request content; a retry with other content is a mismatch. */
  fingerprint: string;
}

export interface Idempotency {
  /**
   * Runs `execute` once per (tenant, endpoint, key). The record is inserted in the same
   * transaction as the work, so concurrent retries wait on its unique key and then replay.
   */
  run(
    scope: IdempotencyScope,
    execute: (trx: Transaction<HanseTables>) => Promise<StoredResponse>,
  ): Promise<IdempotentOutcome>;
  /** An opaque reference for logs: a keyed hash prefix, never the key. */
  reference(key: string): string;
  /** `reference` of the key behind a completed record, without hashing the key again. */
  referenceOf(record: CompletedRecord): string;
  /**
   * For a caller that stores the record in the same autocommit statement as its work (a
   * data-modifying CTE, `claimCompletedRecordsSql`) instead of using `run`: the column values of
   * the completed record, the first answer included. When nothing was inserted, answer with
   * `replayStored`.
   */
  completedRecord(scope: IdempotencyScope, response: StoredResponse): CompletedRecord;
  /**
   * The stored first answer for `record`'s (tenant, endpoint, key) — a replay — read in one new
   * statement; undefined when there is no record. 409 ERR_IDEMPOTENCY_MISMATCH when the stored
   * fingerprint differs from `record`'s.
   */
  replayStored(record: CompletedRecord): Promise<IdempotentOutcome | undefined>;
  /**
   * The replay for `record`'s (tenant, endpoint, key) from this process's memory of completed
   * records it stored or read lately (see `RecentRecords`), without a statement; undefined when
   * it holds none. 409 ERR_IDEMPOTENCY_MISMATCH as `replayStored`.
   */
  recentReplay(record: CompletedRecord): IdempotentOutcome | undefined;
  /** Remembers a completed record this process has just stored, for `recentReplay`. */
  remember(record: CompletedRecord): void;
}

/** The columns of a completed idempotency record (see `Idempotency.completedRecord`). */
export interface CompletedRecord {
  tenantId: string;
  endpoint: string;
  keyHash: Buffer;
  /** Keyed hash of the canonical request content. */
  fingerprint: Buffer;
  statusCode: number;
  responseBody: string;
  /** JSON text of the response headers. */
  responseHeaders: string;
  createdAt: Date;
  expiresAt: Date;
}

/**
 * SQL expressions for the fields of `CompletedRecord`, evaluated once per row of the relation of
 * `claimCompletedRecordsSql`: text the caller writes (column references, parameters, casts),
 * never values. `responseHeaders` is jsonb.
 */
export type CompletedRecordSql = { [K in keyof CompletedRecord]: string };

/**
 * The claim of completed records for a statement of another part that stores the record in the
 * same round trip as its work (see `Idempotency.completedRecord`): one record per row of `from`
 * (relations and joins, no WHERE), inserted in key order so that two statements waiting for each
 * other's keys cannot deadlock; a key already taken inserts nothing (its request waits for a
 * concurrent first one). Returns `tenant_id, endpoint, key_hash` of each record it inserted.
 * Nothing outside this file spells the idempotency table's columns.
 */
export function claimCompletedRecordsSql(from: string, record: CompletedRecordSql): string {
  return `INSERT INTO idempotency_records
    (tenant_id, endpoint, key_hash, fingerprint, status_code, response_body, response_headers,
     created_at, expires_at)
  SELECT ${record.tenantId}, ${record.endpoint}, ${record.keyHash}, ${record.fingerprint},
    ${record.statusCode}, ${record.responseBody}, ${record.responseHeaders}, ${record.createdAt},
    ${record.expiresAt}
  FROM ${from}
  ORDER BY ${record.tenantId}, ${record.endpoint}, ${record.keyHash}
  ON CONFLICT (tenant_id, endpoint, key_hash) DO NOTHING
  RETURNING tenant_id, endpoint, key_hash`;
}

/**
 * Removes up to `limit` records past their expiry (a key can then be used again, as the contract
 * allows); `n` is how many. Run by the retention job (platform/jobs).
 */
export const deleteExpiredRecords = (now: Date, limit: number) =>
  sql<{ n: number }>`WITH gone AS (
      DELETE FROM idempotency_records WHERE ctid = ANY (ARRAY(
        SELECT ctid FROM idempotency_records WHERE expires_at < ${now} LIMIT ${limit}))
      RETURNING 1)
    SELECT count(*)::integer AS n FROM gone`;

const retentionMs = 30 * 24 * 3600 * 1000;

const referenceOfHash = (keyHash: Buffer): string => `idem_${keyHash.subarray(0, 8).toString("hex")}`;

/**
 * Completed records this process stored or read in the last minute, at most 10,000. A completed
 * record never changes until it expires (30 days), so a retry within the minute is answered from
 * memory byte for byte, as the database would; an entry outlives neither its minute nor the
 * record. Two generations of at most 5,000 each: when the young one is full it becomes the old
 * one and the old one is dropped, which costs nothing per call (evicting the oldest entry of one
 * Map walks over the holes its deletions leave: about 6 µs a call at 10,000 entries).
 */
class RecentRecords {
  private young = new Map<string, { record: StoredRecord; until: number }>();
  private old = new Map<string, { record: StoredRecord; until: number }>();

  constructor(
    private readonly clock: Clock,
    private readonly ttlMs = 60_000,
    private readonly limit = 10_000,
  ) {}

  static key(tenantId: string, endpoint: string, keyHash: Uint8Array): string {
    const hash = Buffer.isBuffer(keyHash) ? keyHash : Buffer.from(keyHash);
    return `${tenantId}\n${endpoint}\n${hash.toString("base64")}`;
  }

  get(key: string): StoredRecord | undefined {
    const entry = this.young.get(key) ?? this.old.get(key);
    if (!entry) return undefined;
    if (entry.until > this.clock.now().getTime()) return entry.record;
    this.young.delete(key);
    this.old.delete(key);
    return undefined;
  }

  set(key: string, record: StoredRecord): void {
    if (this.young.size >= this.limit / 2) {
      this.old = this.young;
      this.young = new Map();
    }
    this.young.set(key, { record, until: this.clock.now().getTime() + this.ttlMs });
  }
}

/** Stable JSON: object keys sorted, so semantically equal bodies fingerprint the same. */
export function canonicalJson(value: unknown): string {
  if (value === undefined) return "null";
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
}

export function createIdempotency(deps: { database: Database; clock: Clock; macKey: Buffer }): Idempotency {
  const database = deps.database;
  const keyHash = (key: string) => hmacSha256(deps.macKey, `idempotency-key\n${key}`);
  // Keyed, so a stored fingerprint reveals nothing about the request (it may hold a password).
  const fingerprintOf = (scope: IdempotencyScope) =>
    hmacSha256(deps.macKey, `idempotency-fingerprint\n${scope.fingerprint}`);

  // The replay read of `replayStored`, compiled once; its parameters are tenant, endpoint, key hash.
  const findCompiled = recordQuery(database.db, { tenantId: "", endpoint: "" }, Buffer.alloc(0)).compile();
  const recent = new RecentRecords(deps.clock);

  return {
    reference: (key) => referenceOfHash(keyHash(key)),
    referenceOf: (record) => referenceOfHash(record.keyHash),
    completedRecord(scope, response) {
      const now = deps.clock.now();
      return {
        tenantId: scope.tenantId,
        endpoint: scope.endpoint,
        keyHash: keyHash(scope.key),
        fingerprint: fingerprintOf(scope),
        statusCode: response.status,
        responseBody: response.body,
        responseHeaders: JSON.stringify(response.headers),
        createdAt: now,
        expiresAt: new Date(now.getTime() + retentionMs),
      };
    },
    async replayStored(record) {
      const [found] = await deps.database.prepared<StoredRecord>(
        "hanse_idempotency_replay",
        findCompiled.sql,
        [record.tenantId, record.endpoint, record.keyHash],
      );
      if (!found) return undefined;
      if (found.status_code !== 0)
        recent.set(RecentRecords.key(record.tenantId, record.endpoint, record.keyHash), found);
      return replayRecord(found, record.fingerprint);
    },
    recentReplay(record) {
      const found = recent.get(RecentRecords.key(record.tenantId, record.endpoint, record.keyHash));
      return found ? replayRecord(found, record.fingerprint) : undefined;
    },
    remember(record) {
      recent.set(RecentRecords.key(record.tenantId, record.endpoint, record.keyHash), {
        fingerprint: record.fingerprint,
        status_code: record.statusCode,
        response_body: record.responseBody,
        response_headers: JSON.parse(record.responseHeaders) as Record<string, string>,
      });
    },
    async run(scope, execute) {
      const hash = keyHash(scope.key);
      const fingerprint = fingerprintOf(scope);
      // A completed record is replayed from one read, without a transaction.
      const done = await findRecord(database.db, scope, hash);
      if (done && done.status_code !== 0) return replayRecord(done, fingerprint);
      return database.transaction(async (trx) => {
        const now = deps.clock.now();
        const claimed = await trx
          .insertInto("idempotency_records")
          .values({
            tenant_id: scope.tenantId,
            endpoint: scope.endpoint,
            key_hash: hash,
            fingerprint,
            status_code: 0,
            response_body: "",
            response_headers: "{}",
            created_at: now,
            expires_at: new Date(now.getTime() + retentionMs),
          })
          .onConflict((oc) => oc.columns(["tenant_id", "endpoint", "key_hash"]).doNothing())
          .returning("key_hash")
          .executeTakeFirst();
        if (!claimed) return replay(trx, scope, hash, fingerprint);
        const response = await execute(trx);
        await trx
          .updateTable("idempotency_records")
          .set({
            status_code: response.status,
            response_body: response.body,
            response_headers: JSON.stringify(response.headers),
          })
          .where("tenant_id", "=", scope.tenantId)
          .where("endpoint", "=", scope.endpoint)
          .where("key_hash", "=", hash)
          .execute();
        return { ...response, replay: false };
      });
    },
  };
}

function recordQuery(
  db: Kysely<HanseTables>,
  scope: Pick<IdempotencyScope, "tenantId" | "endpoint">,
  hash: Buffer,
) {
  return db
    .selectFrom("idempotency_records")
    .select(["fingerprint", "status_code", "response_body", "response_headers"])
    .where("tenant_id", "=", scope.tenantId)
    .where("endpoint", "=", scope.endpoint)
    .where("key_hash", "=", hash);
}

function findRecord(db: Kysely<HanseTables>, scope: IdempotencyScope, hash: Buffer) {
  return recordQuery(db, scope, hash).executeTakeFirst();
}

type StoredRecord = NonNullable<Awaited<ReturnType<typeof findRecord>>>;

function replayRecord(record: StoredRecord, fingerprint: Buffer): IdempotentOutcome {
  if (!Buffer.from(record.fingerprint).equals(fingerprint)) {
    throw new AppError("ERR_IDEMPOTENCY_MISMATCH", "The idempotency key was used with a different request.");
  }
  if (record.status_code === 0) {
    throw new AppError(
      "ERR_IDEMPOTENCY_IN_PROGRESS",
      "A request with this idempotency key is still in progress.",
    );
  }
  return {
    status: record.status_code,
    body: record.response_body,
    headers: record.response_headers as Record<string, string>,
    replay: true,
  };
}

async function replay(
  trx: Kysely<HanseTables>,
  scope: IdempotencyScope,
  hash: Buffer,
  fingerprint: Buffer,
): Promise<IdempotentOutcome> {
  // Reached after waiting on a concurrent first request's unique key: by now it has committed.
  const record = await findRecord(trx, scope, hash);
  if (!record)
    throw new AppError(
      "ERR_IDEMPOTENCY_IN_PROGRESS",
      "A request with this idempotency key is still in progress.",
    );
  return replayRecord(record, fingerprint);
}

/** Sends a stored or fresh outcome: its status, headers and the stored bytes as first sent. */
export function sendIdempotentOutcome(reply: FastifyReply, outcome: IdempotentOutcome): FastifyReply {
  for (const [name, value] of Object.entries(outcome.headers)) reply.header(name, value);
  if (outcome.replay) reply.header(headers.idempotentReplayed, "true");
  return reply
    .code(outcome.status)
    .type("application/json; charset=utf-8")
    .serializer((v) => v as string)
    .send(outcome.body);
}
