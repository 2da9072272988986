import type { FastifyPluginAsync } from "fastify";
import type { Transaction } from "kysely";
import type { FastifyBaseLogger as Logger } from "fastify";
import type { Config } from "../config/index.js";
import type { Clock } from "../platform/clock/clock.js";
import type { IdGenerator, SealedColumn } from "../platform/crypto/index.js";
import type { Database } from "../platform/db/database.js";
import type { HanseTables } from "../platform/db/tables.js";
import type { CursorCodec } from "../platform/http/cursor.js";
import type { EntrypointDefinition } from "../platform/http/entrypoints.js";
import type { ApiTag } from "../platform/http/openapi.js";
import type { Idempotency } from "../platform/http/idempotency.js";
import type { JobDefinition, JobQueue } from "../platform/jobs/index.js";
import type { MetricsRegistry } from "../platform/metrics/index.js";
import type { OutboundClient } from "../platform/outbound/index.js";

/** What every module factory receives from the composition root. */
export interface ModuleDeps {
  config: Config;
  database: Database;
  clock: Clock;
  newId: IdGenerator;
  cursors: CursorCodec;
  idempotency: Idempotency;
  jobs: JobQueue;
  logger: Logger;
  /** The process's metrics: each module registers its own series here. */
  metrics: MetricsRegistry;
  /** The one client for calls to customers' URLs (webhooks, lifecycle adapters), and their checks at registration. */
  outbound: OutboundClient;
}

/**
 * A named, idempotent step of tenant provisioning, run in its own transaction. The tenants module
 * runs every part's steps, so the transaction spans the whole database; a step passes its part
 * the slice it owns (`tablesOf` in platform/db).
 */
export interface ProvisioningStep {
  name: string;
  run(
    trx: Transaction<HanseTables>,
    context: { tenantId: string; input: Record<string, unknown> },
  ): Promise<void>;
}

/** What a module contributes to the process. */
export interface HanseModule {
  name: string;
  routes?: FastifyPluginAsync;
  jobs?: JobDefinition<never>[];
  entrypoints?: EntrypointDefinition[];
  /** The OpenAPI tags of its routes, with what each area is for. */
  apiTags?: ApiTag[];
  /** Public capability names reported by discovery. */
  capabilities?: string[];
  /**
   * Runs once at start-up, before any provisioning step: loads what the module's transactions need
   * and must not fetch inside them (on PGlite a transaction holds the only connection).
   */
  prepare?(): Promise<void>;
  /** Work every new tenant needs from this module (default definitions, keys, sequences). */
  provisioningSteps?: ProvisioningStep[];
  /**
   * The columns of its tables that hold values sealed with HANSE_SECRET_KEY: checked at start-up,
   * re-sealed under a new key by `hanse secret-key reseal`.
   */
  sealedColumns?: SealedColumn[];
  /** Releases what the module holds besides the database (threads); after the worker stopped. */
  close?(): Promise<void>;
}
