import type { FastifyBaseLogger as Logger } from "fastify";
import type { Clock } from "../../platform/clock/clock.js";
import type { IdGenerator } from "../../platform/crypto/index.js";
import type { Database } from "../../platform/db/database.js";
import type { CursorCodec } from "../../platform/http/cursor.js";
import type { JobQueue } from "../../platform/jobs/index.js";
import type { IdentityService } from "../identity/index.js";
import type { WorkflowsService } from "../workflows/index.js";
import type { BacklogLimits } from "./inbox-backlog.js";
import type { ProcessingRunner } from "./processing-runner.js";
import type { ExchangeTables } from "./exchange.tables.js";

export interface MailboxSettings {
  leaseSeconds: number;
  maxAttempts: number;
  retryBaseSeconds: number;
}

export interface ExchangeDeps {
  database: Database<ExchangeTables>;
  clock: Clock;
  newId: IdGenerator;
  cursors: CursorCodec;
  jobs: JobQueue;
  identity: IdentityService;
  /** The catalog: the states of the tenant's products by GTIN (order checks). */
  workflows: Pick<WorkflowsService, "productStates">;
  logger: Logger;
  mailbox: MailboxSettings;
  /** Upload and payload limit (16 MiB). */
  maxPayloadBytes: number;
  /** Uploads one API key may stream at once in this process (HANSE_PARTNER_MAX_CONCURRENT_UPLOADS). */
  maxConcurrentUploads: number;
  /** Unprocessed uploads over which the inbox answers 503 (HANSE_INBOX_MAX_BACKLOG*). */
  backlogLimits: BacklogLimits;
  /** Runs the EDIFACT work of processing: inline, or on worker threads for large interchanges. */
  runner: ProcessingRunner;
}

export const iso = (d: Date | null | undefined): string | null => (d ? d.toISOString() : null);
export const hex = (b: Uint8Array): string => Buffer.from(b).toString("hex");
