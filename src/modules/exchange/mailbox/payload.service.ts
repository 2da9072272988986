import { createHash } from "node:crypto";
import { actorOf, recordAudit } from "../../../platform/audit/index.js";
import type { Principal } from "../../../platform/auth/index.js";
import { readBlob } from "../../../platform/blobs/index.js";
import { digestsEqual, isUuid } from "../../../platform/crypto/index.js";
import type { ExchangeDeps } from "../exchange.deps.js";
import { requirePartnerConnection } from "../partner-access.js";
import { holdsLease } from "./claim-token.js";
import { payloadRead } from "./delivery-state.js";
import * as repo from "./mailbox.repository.js";
import { missingClaimToken, notFound } from "./mailbox.service.js";

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

/** The partner's payload reads under a lease: the bytes out, their verdict recorded. */
export function createPayloadService(deps: ExchangeDeps) {
  const { database, clock } = deps;
  const { db } = database;

  /** The delivery of this connection whose current lease the token holds, else 404. */
  async function requireLease(
    tenantId: string,
    connectionId: string,
    deliveryId: string,
    token: string | undefined,
  ) {
    if (!token) throw missingClaimToken();
    if (!isUuid(deliveryId)) throw notFound();
    const row = await repo.findDelivery(db, tenantId, deliveryId.toLowerCase());
    if (row?.connection_id !== connectionId) throw notFound();
    return { row, held: holdsLease(row, token, clock.now()) };
  }

  return {
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
          actor: actorOf(principal),
          connectionId: connection.id,
          uploadId: row.upload_id,
          deliveryAttemptId: row.id,
          targetType: "delivery",
          targetId: row.id,
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
              await repo.updateDelivery(
                trx,
                { tenantId, id: row.id, claimedUnder: attempt },
                payloadRead(attempt, verified),
                clock.now(),
              );
              await recordAudit(trx, {
                tenantId,
                id: deps.newId(),
                type: verified ? "payload.verified" : "payload.failed",
                occurredAt: clock.now(),
                actor: actorOf(principal),
                connectionId: connection.id,
                uploadId: row.upload_id,
                deliveryAttemptId: row.id,
                targetType: "delivery",
                targetId: row.id,
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
  };
}

export type PayloadService = ReturnType<typeof createPayloadService>;
