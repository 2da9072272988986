import type { FastifyBaseLogger as Logger } from "fastify";
import type { Config } from "./config/index.js";
import { consoleKeysOf, signedInCookie } from "./console/session-cookie.js";
import { createDiscoveryModule } from "./modules/discovery/index.js";
import { createExchangeModule } from "./modules/exchange/index.js";
import { createEntitlementsModule } from "./modules/entitlements/index.js";
import { createIdentityModule } from "./modules/identity/index.js";
import type { HanseModule, ModuleDeps, ProvisioningStep } from "./modules/module.js";
import { createTenantsModule } from "./modules/tenants/index.js";
import { createWorkflowsModule } from "./modules/workflows/index.js";
import type { Discovery } from "@hanse/client/protocol";
import type { Authenticator, ServiceAuthenticator } from "./platform/auth/index.js";
import { systemClock, type Clock } from "./platform/clock/clock.js";
import {
  reportSealedValues,
  secretKeysOf,
  sha256,
  uuidv7,
  type IdGenerator,
  type SealedColumn,
} from "./platform/crypto/index.js";
import { createAuditSealJob } from "./platform/audit/index.js";
import { openDatabase, type Database } from "./platform/db/database.js";
import { choreStatement, type MaintenanceReport } from "./platform/db/maintenance.js";
import { instanceSecret } from "./platform/db/instance-settings.js";
import { migrateToLatest, migrationsApplied } from "./platform/db/migrate.js";
import { createCursorCodec } from "./platform/http/cursor.js";
import { createEntrypointRegistry, type EntrypointRegistry } from "./platform/http/entrypoints.js";
import { createIdempotency } from "./platform/http/idempotency.js";
import { registerDatabaseMetrics } from "./platform/db/database.metrics.js";
import {
  createJobQueue,
  createRetentionJob,
  registerJobMetrics,
  type JobDefinition,
} from "./platform/jobs/index.js";
import { createMetricsRegistry, type MetricsRegistry } from "./platform/metrics/index.js";
import { createOutboundClient, reportOutboundGuard, type HostLookup } from "./platform/outbound/index.js";
import { makeDirectory } from "@hanse/client";
import { serverVersion } from "./version.js";

/** Everything a process needs, built once: the composition root. */
export interface Container {
  config: Config;
  logger: Logger;
  clock: Clock;
  database: Database;
  modules: HanseModule[];
  authenticator: Authenticator;
  serviceAuthenticator: ServiceAuthenticator;
  registry: EntrypointRegistry;
  jobs: JobDefinition<never>[];
  /** Every column of values sealed with HANSE_SECRET_KEY (`hanse secret-key reseal`). */
  sealedColumns: SealedColumn[];
  /** Every series of the process; served by the metrics listener (HANSE_METRICS_PORT). */
  metrics: MetricsRegistry;
  ready(): Promise<boolean>;
  close(): Promise<void>;
  /** Set on the first start when no HANSE_BOOTSTRAP_TOKEN was configured. */
  generatedBootstrapToken?: string;
}

export interface ContainerOptions {
  logger: Logger;
  database?: Database;
  clock?: Clock;
  newId?: IdGenerator;
  /**
   * Tests only: how the host names of customers' URLs (webhook subscriptions) resolve, at
   * registration and at every delivery, so that a stub can play DNS rebinding. No setting
   * reaches it: a process started by `hanse serve` always uses the system's resolver.
   */
  lookupHost?: HostLookup;
}

export async function createContainer(config: Config, options: ContainerOptions): Promise<Container> {
  const clock = options.clock ?? systemClock;
  const newId = options.newId ?? (() => uuidv7(clock.now().getTime()));
  // The embedded database's directory (made here, not in platform/: `mkdir -p` that fails
  // instead of hanging is the SDK's file helper).
  if (!options.database && !config.DATABASE_URL) await makeDirectory(config.HANSE_DATA_DIR);
  const database =
    options.database ??
    (await openDatabase({
      url: config.DATABASE_URL,
      pooler: config.HANSE_DATABASE_POOLER === "transaction" ? "transaction" : undefined,
      directUrl: config.HANSE_DATABASE_DIRECT_URL,
      dataDir: config.HANSE_DATA_DIR,
      onMaintenance: (report) => {
        logMaintenance(options.logger, report);
      },
    }));
  await migrateToLatest(database.db);

  if (database.kind === "postgres" && !config.HANSE_SECRET_KEY) {
    options.logger.warn(
      "HANSE_SECRET_KEY is not set: service secrets, webhook secrets and signing keys are sealed with a key " +
        "kept in the database itself; set HANSE_SECRET_KEY in production",
    );
  }
  const macKey = config.HANSE_SECRET_KEY
    ? sha256(config.HANSE_SECRET_KEY)
    : await instanceSecret(database.db, "mac-key");
  // The cache of values read from the database runs on the injected clock (tests advance it).
  const metrics = createMetricsRegistry({ now: () => clock.now().getTime() });
  registerDatabaseMetrics(metrics, database);
  reportOutboundGuard(config.HANSE_WEBHOOK_ALLOW_PRIVATE === "1", { logger: options.logger, metrics });
  const deps: ModuleDeps = {
    config,
    metrics,
    database,
    clock,
    newId,
    cursors: createCursorCodec(
      macKey,
      secretKeysOf(config).previous.map((key) => sha256(key)),
    ),
    idempotency: createIdempotency({ database, clock, macKey }),
    jobs: createJobQueue({ clock, newId }),
    logger: options.logger,
    outbound: createOutboundClient({
      allowPrivate: config.HANSE_WEBHOOK_ALLOW_PRIVATE === "1",
      caFile: config.HANSE_WEBHOOK_CA_FILE,
      // Tests only: how customers' host names resolve; else the system's resolver.
      lookup: options.lookupHost,
    }),
  };

  const consoleKeys = consoleKeysOf(config, database.db);
  const identity = createIdentityModule(deps, {
    consoleCookie: (request, session) =>
      signedInCookie(consoleKeys, request, config.HANSE_PUBLIC_URL, session),
  });
  const bootstrap = await identity.service.bootstrap({
    token: config.HANSE_BOOTSTRAP_TOKEN,
    email: config.HANSE_BOOTSTRAP_EMAIL,
  });

  const steps: ProvisioningStep[] = [];
  const tenants = createTenantsModule({ ...deps, identity: identity.service, steps: () => steps });
  const registry = createEntrypointRegistry();
  // The webhooks part (in entitlements) first: the exchange and workflows raise operator events
  // through it (rules/contract §8).
  const entitlements = createEntitlementsModule(deps);
  const raiseOperatorEvent = entitlements.raiseOperatorEvent;
  const workflows = createWorkflowsModule({ ...deps, raiseOperatorEvent });
  const featureModules: HanseModule[] = [identity, tenants, workflows, entitlements];
  featureModules.push(
    createExchangeModule({
      ...deps,
      identity: identity.service,
      workflows: workflows.service,
      raiseOperatorEvent,
    }),
  );
  for (const module of featureModules) {
    registry.register(...(module.entrypoints ?? []));
    steps.push(...(module.provisioningSteps ?? []));
  }
  for (const module of featureModules) await module.prepare?.();
  const sealedColumns = featureModules.flatMap((m) => m.sealedColumns ?? []);
  await reportSealedValues(options.logger, sealedColumns);
  // The system tenant is made by bootstrap, not provisioned: it gets every module's state here
  // (each step is idempotent, so every start may run them).
  for (const step of steps) {
    await database.transaction((trx) => step.run(trx, { tenantId: bootstrap.systemTenantId, input: {} }));
  }

  const capabilities = featureModules.flatMap((m) => m.capabilities ?? []).sort();
  const document: Discovery = {
    apiMajor: 1,
    serverVersion,
    build: { commit: config.HANSE_BUILD_COMMIT ?? null, builtAt: config.HANSE_BUILD_TIME ?? null },
    capabilities,
    entitlements: entitlements.discovery,
  };
  const discovery = (): Discovery => document;
  const modules = [createDiscoveryModule({ discovery, registry }), ...featureModules];

  return {
    config,
    logger: options.logger,
    clock,
    database,
    modules,
    authenticator: identity.service.authenticator,
    serviceAuthenticator: entitlements.serviceAuthenticator,
    registry,
    sealedColumns,
    jobs: registerJobMetrics(metrics, { db: database.db, clock }, [
      ...modules.flatMap((m) => m.jobs ?? []),
      createRetentionJob({
        db: database.db,
        clock,
        logger: options.logger,
        auditRetentionMs:
          config.HANSE_AUDIT_RETENTION_DAYS === undefined
            ? undefined
            : config.HANSE_AUDIT_RETENTION_DAYS * 86_400_000,
      }),
      createAuditSealJob({
        db: database.db,
        clock,
        logger: options.logger,
        everyMs: config.HANSE_AUDIT_SEAL_SECONDS * 1000,
      }),
    ]),
    metrics,
    ready: async () => {
      await database.ping();
      return migrationsApplied(database.db);
    },
    close: async () => {
      await Promise.all(modules.map((m) => (m.close ? m.close() : Promise.resolve())));
      await deps.outbound.close();
      await database.close();
    },
    ...(bootstrap.generatedToken ? { generatedBootstrapToken: bootstrap.generatedToken } : {}),
  };
}

/** VACUUM and ANALYZE rounds where no autovacuum runs (the embedded database; PostgreSQL with it off). */
function logMaintenance(logger: Logger, report: MaintenanceReport): void {
  if ("error" in report) {
    logger.warn({ err: report.error }, "database maintenance failed");
  } else if (report.chores.length > 0) {
    logger.info(
      { tables: report.chores.map((chore) => choreStatement(chore)), ms: Math.round(report.ms) },
      "database maintenance",
    );
  }
}
