import type { Selectable } from "kysely";
import { actorOf, recordAudit, type AuditActor } from "../../../platform/audit/index.js";
import type { Principal } from "../../../platform/auth/index.js";
import { isUuid, randomSecret } from "../../../platform/crypto/index.js";
import { AppError } from "../../../platform/errors/app-error.js";
import { hex, type ExchangeDeps } from "../exchange.deps.js";
import type { DeliveriesTable } from "../exchange.tables.js";
import { reservePositions } from "../connections.repository.js";
import { requirePartnerConnection } from "../partner-access.js";
import { claimTokenHash, tokenMatches } from "./claim-token.js";
import * as state from "./delivery-state.js";
import { enqueueLeaseExpiry } from "./expire-leases.job.js";
import * as repo from "./mailbox.repository.js";

type Delivery = Selectable<DeliveriesTable>;

export const notFound = () => new AppError("ERR_B2B_EXCHANGE_NOT_FOUND", "No such delivery, claim or lease.");
/**
 * A payload read or acknowledge without a claim token: the 404 of rules/interface Errors, but
 * naming the header to send (decided after the connection, before any delivery is looked up: it
 * tells nothing more).
 */
export const missingClaimToken = () =>
  new AppError(
    "ERR_B2B_EXCHANGE_NOT_FOUND",
    "The X-B2B-Claim-Token header is missing: send the claim token that claim returned for this delivery.",
  );
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

/** The partner's mailbox: list, claim, acknowledge, and the end of expired leases. */
export function createMailboxService(deps: ExchangeDeps) {
  const { database, clock, cursors } = deps;
  const { db } = database;
  const policy = deps.mailbox;

  /**
   * Ends leases that ran out (`delivery-state.ts` `expire`). Run lazily before mailbox reads and
   * by a job at lease end.
   */
  async function expireLeases(tenantId: string, connectionId: string): Promise<number> {
    const now = clock.now();
    return database.transaction(async (trx) => {
      const expired = await repo.findExpiredLeases(trx, tenantId, connectionId, now);
      for (const row of expired) {
        const expiry = state.expire(row, now, policy);
        if (!expiry) continue;
        await repo.updateDelivery(trx, { tenantId, id: row.id }, expiry.changes, now);
        const spent = expiry.outcome === "failed";
        await recordAudit(trx, {
          tenantId,
          id: deps.newId(),
          type: spent ? "delivery.failed" : "delivery.lease_expired",
          occurredAt: now,
          principalId: null,
          connectionId,
          uploadId: row.upload_id,
          deliveryAttemptId: row.id,
          targetType: "delivery",
          targetId: row.id,
          outcome: expiry.outcome,
          data: { attempts: row.attempts },
        });
        if (spent) {
          await deps.raiseOperatorEvent(trx, {
            tenantId,
            type: "exchange.delivery.failed",
            occurredAt: now,
            subject: { deliveryAttemptId: row.id, connectionId, uploadId: row.upload_id },
          });
        }
      }
      return expired.length;
    });
  }

  return {
    expireLeases,

    /**
     * An operator gives a `failed` delivery a fresh attempt budget (`delivery-state.ts` `requeue`).
     * `missing`: no such delivery in the tenant; `refused`: it is not failed.
     */
    async requeue(tenantId: string, id: string): Promise<"requeued" | "missing" | "refused"> {
      // A lease that ran out with the budget spent ends first (the delivery is failed), as before
      // a claim: until its job or a mailbox read ended it, the row still said claimed, and the
      // requeue was refused (issue 37 item 3, found with the model of test/protocols/mailbox.test.ts).
      const found = await repo.findDelivery(db, tenantId, id);
      if (!found) return "missing";
      await expireLeases(tenantId, found.connection_id);
      return database.transaction(async (trx) => {
        const row = await repo.lockDelivery(trx, tenantId, id);
        if (!row) return "missing";
        const now = clock.now();
        const changes = state.requeue(row, now);
        if (!changes) return "refused";
        await repo.updateDelivery(trx, { tenantId, id }, changes, now);
        return "requeued";
      });
    },

    /**
     * An operator re-sends a delivery a partner lost (`delivery-state.ts` `resend`): a new
     * delivery at the end of the connection's mailbox, with the same payload blob (no copy) and
     * message, the original unchanged. Undefined when there is no such delivery in the tenant.
     */
    async resend(tenantId: string, id: string, actor: AuditActor): Promise<Delivery | undefined> {
      return database.transaction(async (trx) => {
        const original = await repo.findDelivery(trx, tenantId, id);
        if (!original) return undefined;
        const now = clock.now();
        // The message as it was (its blob shared, not copied); the state of a new delivery.
        const resent = {
          tenant_id: tenantId,
          id: deps.newId(),
          connection_id: original.connection_id,
          upload_id: original.upload_id,
          position: await reservePositions(trx, tenantId, original.connection_id, 1),
          message_type: original.message_type,
          interchange_id: original.interchange_id,
          inbound_interchange_id: original.inbound_interchange_id,
          message_reference: original.message_reference,
          answers_message_reference: original.answers_message_reference,
          blob_id: original.blob_id,
          payload_size: original.payload_size,
          payload_sha256: Buffer.from(original.payload_sha256),
          ...state.resend(original, now),
          receipt_id: null,
          acknowledged_at: null,
          resent_from: original.id,
          overdue_since: null,
          created_at: now,
          updated_at: now,
        } satisfies Delivery;
        await repo.insertDelivery(trx, resent);
        await recordAudit(trx, {
          tenantId,
          id: deps.newId(),
          type: "delivery.resent",
          occurredAt: now,
          actor,
          targetType: "delivery",
          targetId: resent.id,
          connectionId: original.connection_id,
          uploadId: original.upload_id,
          deliveryAttemptId: resent.id,
          data: { resentFrom: original.id },
        });
        return resent;
      });
    },
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
        const decision = state.claim(row, now, policy, claimTokenHash(token));
        if (!decision.ok) throw conflict(decision.refusal);
        const { attempt, expiresAt } = decision;
        await repo.updateDelivery(trx, { tenantId, id }, decision.changes, now);
        await recordAudit(trx, {
          tenantId,
          id: deps.newId(),
          type: "delivery.claimed",
          occurredAt: now,
          actor: actorOf(principal),
          connectionId: connection.id,
          uploadId: row.upload_id,
          deliveryAttemptId: id,
          targetType: "delivery",
          targetId: id,
          data: { attempt },
        });
        // Ends the lease on time even when nobody reads the mailbox.
        await enqueueLeaseExpiry(
          deps.jobs,
          trx,
          { tenantId, connectionId: connection.id },
          { key: `exchange.lease:${id}:${attempt}`, runAt: expiresAt },
        );
        return { deliveryAttemptId: id, claimToken: token, expiresAt: expiresAt.toISOString(), attempt };
      });
    },

    async acknowledge(
      principal: Principal,
      connectionId: string,
      deliveryId: string,
      token: string | undefined,
    ) {
      const connection = await requirePartnerConnection(database, principal, connectionId);
      const tenantId = connection.tenant_id;
      if (!token) throw missingClaimToken();
      if (!isUuid(deliveryId)) throw notFound();
      const id = deliveryId.toLowerCase();
      return database.transaction(async (trx) => {
        const row = await repo.lockDelivery(trx, tenantId, id);
        if (row?.connection_id !== connection.id || !tokenMatches(row.claim_token_hash, token)) {
          throw notFound();
        }
        const now = clock.now();
        const decision = state.acknowledge(row, now);
        if (decision.kind === "replay" && row.receipt_id && row.acknowledged_at) {
          return {
            deliveryAttemptId: row.id,
            receiptId: row.receipt_id,
            acknowledgedAt: row.acknowledged_at.toISOString(),
            replay: true,
          };
        }
        if (decision.kind === "unverified") {
          throw conflict("No verified payload read under this lease; read the payload to EOF first.");
        }
        if (decision.kind !== "acknowledged") throw notFound();
        const receiptId = deps.newId();
        await repo.updateDelivery(trx, { tenantId, id }, decision.changes(receiptId), now);
        await recordAudit(trx, {
          tenantId,
          id: deps.newId(),
          type: "delivery.acknowledged",
          occurredAt: now,
          actor: actorOf(principal),
          connectionId: connection.id,
          uploadId: row.upload_id,
          deliveryAttemptId: id,
          targetType: "delivery",
          targetId: id,
          data: { attempt: row.attempts },
        });
        return { deliveryAttemptId: id, receiptId, acknowledgedAt: now.toISOString(), replay: false };
      });
    },
  };
}

export type MailboxService = ReturnType<typeof createMailboxService>;
