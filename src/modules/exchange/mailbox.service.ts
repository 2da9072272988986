import { createHash } from "node:crypto";
import type { Selectable } from "kysely";
import { recordAudit } from "../../platform/audit/index.js";
import type { Principal } from "../../platform/auth/index.js";
import { readBlob } from "../../platform/blobs/index.js";
import { digestsEqual, isUuid, randomSecret, sha256 } from "../../platform/crypto/index.js";
import { AppError } from "../../platform/errors/app-error.js";
import type { JobDefinition } from "../../platform/jobs/index.js";
import { hex, type ExchangeDeps } from "./exchange.deps.js";
import * as repo from "./exchange.repository.js";
import type { DeliveriesTable } from "./exchange.tables.js";
import { requirePartnerConnection } from "./partner-access.js";

type Delivery = Selectable<DeliveriesTable>;

const notFound = () => new AppError("ERR_B2B_EXCHANGE_NOT_FOUND", "No such delivery, claim or lease.");
const conflict = (detail: string) => new AppError("ERR_B2B_EXCHANGE_CONFLICT", detail);

const toMailboxItem = (row: Delivery) => ({
  deliveryAttemptId: row.id,
  interchangeId: row.interchange_id,
  messageType: row.message_type,
  payloadSize: row.payload_size,
  payloadSha256: hex(row.payload_sha256),
  status: row.status,
  createdAt: row.created_at.toISOString(),
  uploadId: row.upload_id,
  inboundInterchangeId: row.inbound_interchange_id,
  messageReference: row.message_reference,
});

/** Backoff after an expired lease: base × 2^(attempts−1), capped at 15 minutes (CONTRACT §4). */
export const leaseBackoffMs = (attempts: number, baseSeconds: number): number =>
  Math.min(baseSeconds * 1000 * 2 ** Math.max(0, attempts - 1), 15 * 60 * 1000);

export interface PayloadSink {
  /** Called once, before the first byte. */
  start(headers: Record<string, string>): void;
  /** Writes bytes; resolves false when the client is gone. */
  write(chunk: Buffer): Promise<boolean>;
  /** Ends the body with the integrity trailer; resolves whether the response was fully sent. */
  end(integrity: "verified" | "failed"): Promise<boolean>;
  /** Aborts the response (no trailer can be written any more). */
  abort(): void;
}

export function createMailboxService(
  deps: ExchangeDeps,
  expireJob: () => JobDefinition<{ tenantId: string; connectionId: string }>,
) {
  const { database, clock, cursors } = deps;
  const { db } = database;
  const settings = deps.mailbox;
  const tokenHash = (token: string) => sha256(`exchange-claim-token\n${token}`);

  /**
   * Ends leases that ran out: the entry is due again after the backoff, or `failed` once its
   * attempt budget is spent. Run lazily before mailbox reads and by a job at lease end.
   */
  async function expireLeases(tenantId: string, connectionId: string): Promise<number> {
    const now = clock.now();
    return database.transaction(async (trx) => {
      const expired = await repo.findExpiredLeases(trx, tenantId, connectionId, now);
      for (const row of expired) {
        const spent = row.attempts >= settings.maxAttempts;
        const leaseEnd = row.lease_expires_at ?? now;
        await trx
          .updateTable("exchange_deliveries")
          .set({
            status: spent ? "failed" : "ready",
            due_at: spent
              ? row.due_at
              : new Date(leaseEnd.getTime() + leaseBackoffMs(row.attempts, settings.retryBaseSeconds)),
            lease_expires_at: null,
            claim_token_hash: null,
            verified_attempt: null,
            updated_at: now,
          })
          .where("tenant_id", "=", tenantId)
          .where("id", "=", row.id)
          .execute();
        await recordAudit(trx, {
          tenantId,
          id: deps.newId(),
          type: spent ? "delivery.failed" : "delivery.lease_expired",
          occurredAt: now,
          principalId: null,
          connectionId,
          uploadId: row.upload_id,
          deliveryAttemptId: row.id,
          outcome: spent ? "failed" : "ready",
          data: { attempts: row.attempts },
        });
      }
      return expired.length;
    });
  }

  /** The delivery of this connection whose current lease the token holds, else 404. */
  async function requireLease(
    tenantId: string,
    connectionId: string,
    deliveryId: string,
    token: string | undefined,
  ) {
    if (!token || !isUuid(deliveryId)) throw notFound();
    const row = await repo.findDelivery(db, tenantId, deliveryId.toLowerCase());
    if (row?.connection_id !== connectionId) throw notFound();
    const now = clock.now();
    const held =
      row.status === "claimed" &&
      row.claim_token_hash !== null &&
      row.lease_expires_at !== null &&
      row.lease_expires_at > now &&
      digestsEqual(Buffer.from(row.claim_token_hash), tokenHash(token));
    return { row, held };
  }

  return {
    expireLeases,

    async list(
      principal: Principal,
      connectionId: string,
      page: { limit: number; cursor?: string | undefined },
    ) {
      const connection = await requirePartnerConnection(database, principal, connectionId);
      const tenantId = connection.tenant_id;
      const binding = `exchange.mailbox:${tenantId}:${connection.id}`;
      let after: number | undefined;
      if (page.cursor !== undefined) {
        try {
          after = cursors.decode<{ position: number }>(binding, page.cursor).position;
        } catch {
          throw new AppError(
            "ERR_B2B_EXCHANGE_INVALID_REQUEST",
            "The cursor is not valid for this mailbox.",
            {
              errors: [{ pointer: "/query/cursor", message: "invalid cursor" }],
            },
          );
        }
        if (typeof after !== "number")
          throw new AppError("ERR_B2B_EXCHANGE_INVALID_REQUEST", "The cursor is not valid for this mailbox.");
      }
      await expireLeases(tenantId, connection.id);
      const rows = await repo.listDue(db, tenantId, connection.id, clock.now(), page.limit, after);
      const hasMore = rows.length > page.limit;
      const kept = rows.slice(0, page.limit);
      const last = kept.at(-1);
      return {
        items: kept.map(toMailboxItem),
        meta: {
          hasMore,
          nextCursor: hasMore && last ? cursors.encode(binding, { position: last.position }) : null,
        },
      };
    },

    async claim(principal: Principal, connectionId: string, deliveryId: string) {
      const connection = await requirePartnerConnection(database, principal, connectionId);
      const tenantId = connection.tenant_id;
      if (!isUuid(deliveryId)) throw notFound();
      const id = deliveryId.toLowerCase();
      await expireLeases(tenantId, connection.id);
      const token = randomSecret();
      return database.transaction(async (trx) => {
        const row = await repo.lockDelivery(trx, tenantId, id);
        if (row?.connection_id !== connection.id) throw notFound();
        const now = clock.now();
        if (row.status === "claimed") throw conflict("The delivery is claimed by an active lease.");
        if (row.status !== "ready") throw conflict(`The delivery is ${row.status}.`);
        if (row.due_at > now) throw conflict("The delivery is not due yet.");
        if (row.attempts >= settings.maxAttempts)
          throw conflict("The attempt budget of the delivery is spent.");
        const attempt = row.attempts + 1;
        const expiresAt = new Date(now.getTime() + settings.leaseSeconds * 1000);
        await trx
          .updateTable("exchange_deliveries")
          .set({
            status: "claimed",
            attempts: attempt,
            lease_expires_at: expiresAt,
            claim_token_hash: tokenHash(token),
            verified_attempt: null,
            updated_at: now,
          })
          .where("tenant_id", "=", tenantId)
          .where("id", "=", id)
          .execute();
        await recordAudit(trx, {
          tenantId,
          id: deps.newId(),
          type: "delivery.claimed",
          occurredAt: now,
          principalId: principal.id,
          connectionId: connection.id,
          uploadId: row.upload_id,
          deliveryAttemptId: id,
          data: { attempt },
        });
        // Ends the lease on time even when nobody reads the mailbox.
        await deps.jobs.enqueue(
          trx,
          expireJob(),
          { tenantId, connectionId: connection.id },
          { key: `exchange.lease:${id}:${attempt}`, tenantId, runAt: expiresAt },
        );
        return { deliveryAttemptId: id, claimToken: token, expiresAt: expiresAt.toISOString(), attempt };
      });
    },

    /**
     * Streams the payload from storage, hashing what it sends; the trailer says `verified` only
     * when every byte went out and matched the stored size and SHA-256.
     */
    async preparePayload(
      principal: Principal,
      connectionId: string,
      deliveryId: string,
      token: string | undefined,
    ) {
      const connection = await requirePartnerConnection(database, principal, connectionId);
      const tenantId = connection.tenant_id;
      const { row, held } = await requireLease(tenantId, connection.id, deliveryId, token);
      if (!held) throw notFound();
      const attempt = row.attempts;
      const audit = async (type: string, extra: { byteCount?: number; outcome?: string }) => {
        await recordAudit(db, {
          tenantId,
          id: deps.newId(),
          type,
          occurredAt: clock.now(),
          principalId: principal.id,
          connectionId: connection.id,
          uploadId: row.upload_id,
          deliveryAttemptId: row.id,
          ...extra,
          data: { attempt },
        });
      };
      const expectedSha = Buffer.from(row.payload_sha256);
      const expectedSize = row.payload_size;
      const headers = {
        "content-type": "application/edifact",
        "cache-control": "no-store",
        "x-b2b-payload-size": String(expectedSize),
        "x-b2b-payload-sha256": expectedSha.toString("hex"),
        "repr-digest": `sha-256=:${expectedSha.toString("base64")}:`,
      };
      return {
        headers,
        async stream(sink: PayloadSink): Promise<"verified" | "failed"> {
          await audit("payload.opened", {});
          sink.start(headers);
          const hash = createHash("sha256");
          let sent = 0;
          let complete = false;
          let clientGone = false;
          try {
            for await (const chunk of readBlob(database, tenantId, row.blob_id)) {
              hash.update(chunk);
              sent += chunk.length;
              if (!(await sink.write(chunk))) {
                clientGone = true;
                break;
              }
            }
            complete = !clientGone;
          } catch {
            // A storage read error: the client is still there and gets the `failed` trailer.
            complete = false;
          }
          const intact = complete && sent === expectedSize && digestsEqual(hash.digest(), expectedSha);
          // The verdict is committed before the trailer goes out, so a client that acknowledges
          // right after reading it finds its verified read.
          const record = async (verified: boolean, byteCount: number) => {
            await database.transaction(async (trx) => {
              await trx
                .updateTable("exchange_deliveries")
                .set({ verified_attempt: verified ? attempt : null, updated_at: clock.now() })
                .where("tenant_id", "=", tenantId)
                .where("id", "=", row.id)
                .where("status", "=", "claimed")
                .where("attempts", "=", attempt)
                .execute();
              await recordAudit(trx, {
                tenantId,
                id: deps.newId(),
                type: verified ? "payload.verified" : "payload.failed",
                occurredAt: clock.now(),
                principalId: principal.id,
                connectionId: connection.id,
                uploadId: row.upload_id,
                deliveryAttemptId: row.id,
                byteCount,
                outcome: verified ? "verified" : "failed",
                data: { attempt },
              });
            });
          };
          if (!complete) {
            if (clientGone) sink.abort();
            await record(false, sent);
            if (!clientGone) await sink.end("failed");
            return "failed";
          }
          await record(intact, sent);
          const delivered = await sink.end(intact ? "verified" : "failed");
          if (intact && !delivered) {
            // The client went away before EOF: not a verified read after all.
            await record(false, sent);
            return "failed";
          }
          const outcome = intact ? "verified" : "failed";
          return outcome;
        },
      };
    },

    async acknowledge(
      principal: Principal,
      connectionId: string,
      deliveryId: string,
      token: string | undefined,
    ) {
      const connection = await requirePartnerConnection(database, principal, connectionId);
      const tenantId = connection.tenant_id;
      if (!token || !isUuid(deliveryId)) throw notFound();
      const id = deliveryId.toLowerCase();
      const presented = tokenHash(token);
      return database.transaction(async (trx) => {
        const row = await repo.lockDelivery(trx, tenantId, id);
        if (row?.connection_id !== connection.id || row.claim_token_hash === null) throw notFound();
        const tokenMatches = digestsEqual(Buffer.from(row.claim_token_hash), presented);
        if (!tokenMatches) throw notFound();
        if (row.status === "acknowledged" && row.receipt_id && row.acknowledged_at) {
          return {
            deliveryAttemptId: row.id,
            receiptId: row.receipt_id,
            acknowledgedAt: row.acknowledged_at.toISOString(),
            replay: true,
          };
        }
        const now = clock.now();
        if (row.status !== "claimed" || !row.lease_expires_at || row.lease_expires_at <= now)
          throw notFound();
        if (row.verified_attempt !== row.attempts) {
          throw conflict("No verified payload read under this lease; read the payload to EOF first.");
        }
        const receiptId = deps.newId();
        await trx
          .updateTable("exchange_deliveries")
          .set({ status: "acknowledged", receipt_id: receiptId, acknowledged_at: now, updated_at: now })
          .where("tenant_id", "=", tenantId)
          .where("id", "=", id)
          .execute();
        await recordAudit(trx, {
          tenantId,
          id: deps.newId(),
          type: "delivery.acknowledged",
          occurredAt: now,
          principalId: principal.id,
          connectionId: connection.id,
          uploadId: row.upload_id,
          deliveryAttemptId: id,
          data: { attempt: row.attempts },
        });
        return { deliveryAttemptId: id, receiptId, acknowledgedAt: now.toISOString(), replay: false };
      });
    },
  };
}

export type MailboxService = ReturnType<typeof createMailboxService>;
