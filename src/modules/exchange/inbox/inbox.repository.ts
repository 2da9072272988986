import type { Kysely } from "kysely";
import type { RowCredentialCheck } from "../../../platform/auth/index.js";
import { insertAuditEventsSql } from "../../../platform/audit/index.js";
import { insertSmallBlobSql } from "../../../platform/blobs/index.js";
import { runJsonStatements } from "../../../platform/db/statement-batcher.js";
import type { Database } from "../../../platform/db/database.js";
import { insertJobsSql } from "../../../platform/jobs/index.js";
import type { ExchangeTables, UploadStatus } from "../exchange.tables.js";

type Db = Kysely<ExchangeTables>;

export function findUploadByKey(db: Db, tenantId: string, connectionId: string, keyHash: Buffer) {
  return db
    .selectFrom("exchange_uploads")
    .selectAll()
    .where("tenant_id", "=", tenantId)
    .where("connection_id", "=", connectionId)
    .where("key_hash", "=", keyHash)
    .executeTakeFirst();
}

/**
 * An upload accepted by ONE autocommit statement, one round trip:
 *
 * - `target`: the tenant, profile revision and principal the upload is recorded for, given by the
 *   caller (who authenticated the key and read the connection; for the statement that checks the
 *   key itself, see `checkedUploadsSql` below);
 * - `existing`: the upload of this key as the statement's snapshot sees it — a replay is answered
 *   from it and nothing is written;
 * - `upload`: otherwise the upload row; the unique key (tenant, connection, key hash) makes a
 *   concurrent first request wait, and all but one insert nothing;
 * - `blob`, `chunk` (a small upload, its bytes in one chunk, not stored yet): the complete blob
 *   with its single chunk (`insertSmallBlobSql`); a streamed upload's blob is already stored and
 *   these are left out;
 * - `audit`, `job`: the `upload.received` audit event and the processing job
 *   (`insertAuditEventsSql`, `insertJobsSql`: the other tables' owners write their SQL);
 * - all of these only if the upload row was inserted;
 * - the caller wakes idle workers after the commit (a NOTIFY in the statement would take the
 *   notification queue's lock at commit, serialising concurrent uploads).
 *
 * When neither `inserted` nor an existing upload came back, a concurrent first request committed
 * after this statement's snapshot: the caller reads the key again in a new statement.
 *
 * Parameters: $1–$17 as `commonParameters` below, then the target ($18–$20) and the bytes of a
 * small upload ($21).
 * The job's payload names the upload's tenant and id, so it is made by the statement; its trace
 * context ($14, JSON text or NULL) is the upload request's, so the processing job's log lines and
 * calls continue the request's trace.
 */
const blobCtes = (data: string) => {
  const { blob, chunk } = insertSmallBlobSql("upload", {
    tenantId: "tenant_id",
    id: "$4::uuid",
    contentType: "'application/edifact'",
    byteCount: "$5::bigint",
    sha256: "$6::bytea",
    data,
    createdAt: "$8::timestamptz",
  });
  return `, blob AS (
  ${blob}
), chunk AS (
  ${chunk}
)`;
};

const givenTarget = `target AS (
  SELECT $18::uuid AS tenant_id, $19::integer AS revision, $20::uuid AS principal_id
)`;

const acceptUploadSql = (data: string | undefined) => `
WITH ${givenTarget}, existing AS (
  SELECT id, sha256, interchange_id, status FROM exchange_uploads
  WHERE tenant_id = (SELECT tenant_id FROM target) AND connection_id = $1::uuid AND key_hash = $2::bytea
), upload AS (
  INSERT INTO exchange_uploads
    (tenant_id, id, connection_id, key_hash, blob_id, byte_count, sha256, interchange_id,
     profile_revision, status, error, principal_id, created_at, updated_at, completed_at)
  SELECT target.tenant_id, $3::uuid, $1::uuid, $2::bytea, $4::uuid, $5::bigint, $6::bytea, $7::text,
    target.revision, 'received', NULL, target.principal_id, $8::timestamptz, $8::timestamptz, NULL
  FROM target
  WHERE NOT EXISTS (SELECT FROM existing)
  ON CONFLICT (tenant_id, connection_id, key_hash) DO NOTHING
  RETURNING tenant_id, id, principal_id
)${data === undefined ? "" : blobCtes(data)}, audit AS (
  ${insertAuditEventsSql("upload", {
    tenantId: "tenant_id",
    id: "$9::uuid",
    type: "'upload.received'",
    occurredAt: "$8::timestamptz",
    principalId: "$15::uuid",
    principalKind: "'partner_api_key'",
    targetType: "'upload'",
    targetId: "id::text",
    sourceAddress: "$16::text",
    correlationId: "$17::text",
    connectionId: "$1::uuid",
    uploadId: "id",
    byteCount: "$5::bigint",
  })}
), job AS (
  ${insertJobsSql("upload", {
    id: "$10::uuid",
    tenantId: "tenant_id",
    name: "$11::text",
    key: "$12::text",
    payload: "jsonb_build_object('tenantId', tenant_id, 'uploadId', id)",
    maxAttempts: "$13::integer",
    runAt: "$8::timestamptz",
    createdAt: "$8::timestamptz",
    traceContext: "$14::text::jsonb",
  })}
)
SELECT (SELECT count(*) FROM upload)::integer AS inserted,
  existing.id AS existing_id, existing.sha256 AS existing_sha256,
  existing.interchange_id AS existing_interchange_id, existing.status AS existing_status
FROM (VALUES (1)) AS one LEFT JOIN existing ON true`;

/** The uploads a checked statement inserted, each with its input row. */
const newUploads = "upload AS u INNER JOIN input AS i ON i.upload_id = u.id";
const checkedBlob = insertSmallBlobSql(newUploads, {
  tenantId: "u.tenant_id",
  id: "i.blob_id",
  contentType: "'application/edifact'",
  byteCount: "i.byte_count",
  sha256: "i.sha256",
  data: "i.data",
  createdAt: "i.at",
});

/**
 * The same accept for small uploads whose partner key the statement checks itself, for any
 * number of uploads at once (requests that arrive together share it, see inbox.service.ts). The
 * uploads come as one JSON parameter (`input`, numbered by `ord`, the bytes in base64); per
 * upload:
 *
 * - `credential`, `authorized`: its key's check (`RowCredentialCheck.rowsSql`);
 * - `connection`, `target`: the connection it names, in the key's tenant, and — only when the key
 *   is valid, holds the scope and may use that active connection of its partner — the tenant,
 *   profile revision and principal the upload is recorded for;
 * - `existing`, `upload`, `blob`, `chunk`, `audit`, `job`: as above, upload by upload; upload rows
 *   are inserted in key order, so two statements waiting for each other's keys cannot deadlock;
 * - the final SELECT answers one row per upload, in order: whether it was inserted, the existing
 *   upload, the key's row (`credential`) and the connection's columns for the caller's decision.
 *
 * The uploads of one statement must have distinct keys (see `acceptCheckedUploads`).
 */
const checkedUploadsSql = (check: ReturnType<RowCredentialCheck["rowsSql"]>) => `
WITH input AS (
  SELECT i.ord, ${check.values.select}, i.connection_id,
    decode(i.key_hash, 'hex') AS key_hash, i.upload_id, i.blob_id, i.byte_count,
    decode(i.sha256, 'hex') AS sha256, i.interchange_id, i.at, i.audit_id, i.job_id, i.job_name,
    i.job_key, i.max_attempts, i.job_trace_context, i.audit_principal_id, i.source_address,
    i.correlation_id,
    decode(i.data, 'base64') AS data
  FROM json_to_recordset($1::json) AS i (
    ord integer, ${check.values.types}, connection_id uuid, key_hash text, upload_id uuid, blob_id uuid,
    byte_count bigint, sha256 text, interchange_id text, at timestamptz, audit_id uuid,
    job_id uuid, job_name text, job_key text, max_attempts integer, job_trace_context text,
    audit_principal_id uuid, source_address text, correlation_id text, data text)
), ${check.sql}, connection AS (
  SELECT i.ord, c.tenant_id, c.partner_id, c.status, c.active_revision
  FROM input AS i
  INNER JOIN credential AS k ON k.ord = i.ord
  INNER JOIN exchange_connections AS c ON c.tenant_id = k.tenant_id AND c.id = i.connection_id
), target AS (
  SELECT i.ord, c.tenant_id, c.active_revision AS revision, k.principal_id
  FROM input AS i
  INNER JOIN authorized AS a ON a.ord = i.ord
  INNER JOIN credential AS k ON k.ord = i.ord
  INNER JOIN connection AS c ON c.ord = i.ord
  WHERE c.partner_id = k.principal_id AND c.status = 'active'
    AND (k.connection_ids IS NULL OR i.connection_id = ANY (k.connection_ids))
), existing AS (
  SELECT t.ord, u.id, u.sha256, u.interchange_id, u.status
  FROM target AS t
  INNER JOIN input AS i ON i.ord = t.ord
  INNER JOIN exchange_uploads AS u
    ON u.tenant_id = t.tenant_id AND u.connection_id = i.connection_id AND u.key_hash = i.key_hash
), upload AS (
  INSERT INTO exchange_uploads
    (tenant_id, id, connection_id, key_hash, blob_id, byte_count, sha256, interchange_id,
     profile_revision, status, error, principal_id, created_at, updated_at, completed_at)
  SELECT t.tenant_id, i.upload_id, i.connection_id, i.key_hash, i.blob_id, i.byte_count, i.sha256,
    i.interchange_id, t.revision, 'received', NULL, t.principal_id, i.at, i.at, NULL
  FROM target AS t INNER JOIN input AS i ON i.ord = t.ord
  WHERE NOT EXISTS (SELECT FROM existing AS e WHERE e.ord = t.ord)
  ORDER BY t.tenant_id, i.connection_id, i.key_hash
  ON CONFLICT (tenant_id, connection_id, key_hash) DO NOTHING
  RETURNING tenant_id, id, principal_id
), blob AS (
  ${checkedBlob.blob}
), chunk AS (
  ${checkedBlob.chunk}
), audit AS (
  ${insertAuditEventsSql(newUploads, {
    tenantId: "u.tenant_id",
    id: "i.audit_id",
    type: "'upload.received'",
    occurredAt: "i.at",
    principalId: "i.audit_principal_id",
    principalKind: "'partner_api_key'",
    targetType: "'upload'",
    targetId: "u.id::text",
    sourceAddress: "i.source_address",
    correlationId: "i.correlation_id",
    connectionId: "i.connection_id",
    uploadId: "u.id",
    byteCount: "i.byte_count",
  })}
), job AS (
  ${insertJobsSql(newUploads, {
    id: "i.job_id",
    tenantId: "u.tenant_id",
    name: "i.job_name",
    key: "i.job_key",
    payload: "jsonb_build_object('tenantId', u.tenant_id, 'uploadId', u.id)",
    maxAttempts: "i.max_attempts",
    runAt: "i.at",
    createdAt: "i.at",
    traceContext: "i.job_trace_context::jsonb",
  })}
)
SELECT i.ord, (i.upload_id IN (SELECT id FROM upload))::integer AS inserted,
  e.id AS existing_id, e.sha256 AS existing_sha256, e.interchange_id AS existing_interchange_id,
  e.status AS existing_status, ${check.returning}, connection.tenant_id AS connection_tenant_id,
  connection.partner_id AS connection_partner_id, connection.status AS connection_status,
  connection.active_revision AS connection_revision
FROM input AS i
LEFT JOIN existing AS e ON e.ord = i.ord
LEFT JOIN credential ON credential.ord = i.ord
LEFT JOIN connection ON connection.ord = i.ord
ORDER BY i.ord`;

const acceptUploadStatements = {
  stored: acceptUploadSql(undefined),
  withBytes: acceptUploadSql("$21::bytea"),
};
/** The checked statement's text, made once for the check's text. */
let checkedStatement = { check: "", text: "" };

export interface AcceptedUpload {
  id: string;
  connectionId: string;
  keyHash: Buffer;
  blobId: string;
  byteCount: number;
  sha256: Buffer;
  interchangeId: string | null;
  at: Date;
  auditId: string;
  job: {
    id: string;
    name: string;
    key: string | null;
    maxAttempts: number;
    /** JSON text of the upload request's trace (`enqueuingTraceContext`); none: null. */
    traceContext?: string | null;
  };
  /** For its audit record: the partner API key (its id), the client address, the correlation id. */
  origin: { apiKeyId: string; sourceAddress: string | null; correlationId: string | null };
}

/** What the caller states when it has authenticated the key and read the connection itself. */
export interface UploadTarget {
  tenantId: string;
  profileRevision: number;
  principalId: string;
}

export interface ExistingUpload {
  id: string;
  sha256: Uint8Array;
  interchange_id: string | null;
  status: UploadStatus;
}

/** The connection as the checked statement saw it (null columns: no such connection). */
export interface CheckedConnection {
  connection_tenant_id: string | null;
  connection_partner_id: string | null;
  connection_status: string | null;
  connection_revision: number | null;
}

export type AcceptResult = { inserted: true } | { inserted: false; existing: ExistingUpload | undefined };

const commonParameters = (upload: AcceptedUpload) => [
  upload.connectionId,
  upload.keyHash,
  upload.id,
  upload.blobId,
  upload.byteCount,
  upload.sha256,
  upload.interchangeId,
  upload.at,
  upload.auditId,
  upload.job.id,
  upload.job.name,
  upload.job.key,
  upload.job.maxAttempts,
  upload.job.traceContext ?? null,
  upload.origin.apiKeyId,
  upload.origin.sourceAddress,
  upload.origin.correlationId,
];

type AcceptRow = {
  inserted: number;
  existing_id: string | null;
  existing_sha256: Uint8Array | null;
  existing_interchange_id: string | null;
  existing_status: UploadStatus | null;
};

const acceptResultOf = (row: AcceptRow | undefined): AcceptResult => {
  if (row && row.inserted > 0) return { inserted: true };
  if (!row?.existing_id || !row.existing_sha256 || !row.existing_status) {
    return { inserted: false, existing: undefined };
  }
  return {
    inserted: false,
    existing: {
      id: row.existing_id,
      sha256: row.existing_sha256,
      interchange_id: row.existing_interchange_id,
      status: row.existing_status,
    },
  };
};

/**
 * Runs the accept statement above for a caller that authenticated the key and read the
 * connection. `bytes`: the whole body of a small upload, stored by the same statement; without it
 * the blob `upload.blobId` is already complete.
 */
export async function acceptUpload(
  database: Database<ExchangeTables>,
  upload: AcceptedUpload,
  target: UploadTarget,
  bytes?: Buffer,
): Promise<AcceptResult> {
  // Prepared statements take the bytes as a binary parameter on both databases.
  const variant = bytes ? "withBytes" : "stored";
  const rows = await database.prepared<AcceptRow>(
    `hanse_upload_accept_${variant}`,
    acceptUploadStatements[variant],
    [
      ...commonParameters(upload),
      target.tenantId,
      target.profileRevision,
      target.principalId,
      ...(bytes ? [bytes] : []),
    ],
  );
  return acceptResultOf(rows[0]);
}

/** A small upload whose partner key the statement checks: see `checkedUploadsSql`. */
export interface CheckedUpload {
  check: RowCredentialCheck;
  upload: AcceptedUpload;
  bytes: Buffer;
}

export interface CheckedUploadOutcome {
  result: AcceptResult;
  /** The key's row (`credential`) and the connection's columns, for the caller's own decision. */
  row: Record<string, unknown> & Partial<CheckedConnection>;
}

/**
 * Runs the checked statement above for `uploads` (prepared once per connection), as few times as
 * their keys allow (`runJsonStatements`). Outcomes come in the uploads' order.
 */
export async function acceptCheckedUploads(
  database: Database<ExchangeTables>,
  uploads: readonly CheckedUpload[],
): Promise<CheckedUploadOutcome[]> {
  const first = uploads[0];
  if (!first) return [];
  const check = first.check.rowsSql("input");
  if (checkedStatement.check !== check.sql) {
    checkedStatement = { check: check.sql, text: checkedUploadsSql(check) };
  }
  return runJsonStatements<CheckedUpload, AcceptRow & Record<string, unknown>, CheckedUploadOutcome>(
    database,
    { name: "hanse_upload_accept_checked", text: checkedStatement.text },
    uploads,
    {
      keyOf: ({ upload }) => `${upload.connectionId}\n${upload.keyHash.toString("hex")}`,
      inputOf: ({ check: c, upload, bytes }) => ({
        ...c.values,
        connection_id: upload.connectionId,
        key_hash: upload.keyHash.toString("hex"),
        upload_id: upload.id,
        blob_id: upload.blobId,
        byte_count: upload.byteCount,
        sha256: upload.sha256.toString("hex"),
        interchange_id: upload.interchangeId,
        at: upload.at.toISOString(),
        audit_id: upload.auditId,
        job_id: upload.job.id,
        job_name: upload.job.name,
        job_key: upload.job.key,
        max_attempts: upload.job.maxAttempts,
        job_trace_context: upload.job.traceContext ?? null,
        audit_principal_id: upload.origin.apiKeyId,
        source_address: upload.origin.sourceAddress,
        correlation_id: upload.origin.correlationId,
        data: bytes.toString("base64"),
      }),
      outcomeOf: (row) => ({ result: acceptResultOf(row), row }),
    },
  );
}
