import type { FastifyBaseLogger as Logger } from "fastify";
import type { Clock } from "../../platform/clock/clock.js";
import type { IdGenerator } from "../../platform/crypto/index.js";
import type { Database } from "../../platform/db/database.js";
import type { CursorCodec } from "../../platform/http/cursor.js";
import type { JobQueue } from "../../platform/jobs/index.js";
import type { RaiseOperatorEvent } from "../entitlements/index.js";
import type { IdentityService, IdentityTables } from "../identity/index.js";
import type { WorkflowsService } from "../workflows/index.js";
import type { ExchangeTables } from "./exchange.tables.js";
import type { DeliveryPolicy } from "./mailbox/delivery-state.js";

/** What every part of the exchange receives from the module's factory. */
export interface ExchangeDeps {
  database: Database<ExchangeTables>;
  /**
   * The same database for the transactions that write identity's tables too: a partner's API
   * keys, which identity issues and revokes in the exchange's transaction with its audit record.
   */
  keysDatabase: Database<ExchangeTables & IdentityTables>;
  clock: Clock;
  newId: IdGenerator;
  cursors: CursorCodec;
  jobs: JobQueue;
  identity: IdentityService;
  /** The catalog: the states of the tenant's products by GTIN (order checks). */
  workflows: Pick<WorkflowsService, "productStates">;
  logger: Logger;
  /** Operator notifications (rules/contract §8), raised in the transaction of the state change. */
  raiseOperatorEvent: RaiseOperatorEvent;
  mailbox: DeliveryPolicy;
  /** Upload and payload limit (16 MiB). */
  maxPayloadBytes: number;
}

export const iso = (d: Date | null | undefined): string | null => (d ? d.toISOString() : null);
export const hex = (b: Uint8Array): string => Buffer.from(b).toString("hex");
