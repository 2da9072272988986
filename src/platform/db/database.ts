import { PGlite } from "@electric-sql/pglite";
import { Kysely, PGliteDialect, PostgresDialect, type Transaction } from "kysely";
import pg from "pg";
import { BinaryCopyParser, type CopyRow } from "./binary-copy.js";
import { pgCopyRows } from "./pg-copy-out.js";
import type { HanseTables } from "./tables.js";
import { createPglitePrepared } from "./pglite-prepared.js";
import { takingTurns } from "./pglite-turns.js";
import {
  maintainPglite,
  maintainPostgres,
  maintainPostgresWithoutSession,
  scheduleMaintenance,
  type MaintenanceReport,
  type TableChore,
} from "./maintenance.js";

export type DatabaseKind = "pglite" | "postgres";

/** The one storage handle: Kysely over PGlite (embedded) or over a `pg` pool. */
/**
 * What suits each database, chosen here and nowhere else (services read it from the handle):
 * - `statementLanes`: statements a `createStatementBatcher` runs at once. PGlite has one
 *   connection, so one; PostgreSQL three, measured (statement-batcher.ts).
 * - `chunkWritesInFlight`: blob chunk writes of one upload stream at once after the first. On
 *   PostgreSQL each runs on a connection of its own: one backend compresses and stores 1 MiB
 *   chunks at ~120 MB/s, two side by side at ~240 MB/s on the 2-core test machine. PGlite runs one
 *   statement at a time, so a second write would only wait, holding its chunk.
 * - `byteaTransfer`: how bytes cross the driver (blob-store.ts `BlobTransfer`): a binary
 *   parameter on PostgreSQL; hex text on PGlite, whose own bytea codec goes byte by byte through
 *   JS strings (~100× slower on 16 MiB).
 * - `blobReadBatch`: blob chunks one COPY statement reads (blob-store.ts `readBlob`). PostgreSQL
 *   streams a statement with backpressure, so all of them; PGlite answers a statement whole, so
 *   four at a time keep memory bounded.
 */
export interface DatabaseTuning {
  readonly statementLanes: number;
  readonly chunkWritesInFlight: number;
  readonly byteaTransfer: "binary" | "hex";
  readonly blobReadBatch: number;
}

export const databaseTuning: Readonly<Record<DatabaseKind, DatabaseTuning>> = {
  pglite: { statementLanes: 1, chunkWritesInFlight: 1, byteaTransfer: "hex", blobReadBatch: 4 },
  postgres: {
    statementLanes: 3,
    chunkWritesInFlight: 2,
    byteaTransfer: "binary",
    blobReadBatch: Number.POSITIVE_INFINITY,
  },
};

export interface Database<T = HanseTables> {
  readonly kind: DatabaseKind;
  /** The settings that suit this database (`databaseTuning`). */
  readonly tuning: DatabaseTuning;
  readonly db: Kysely<T>;
  /**
   * Runs `fn` in a transaction that commits when it resolves and always rolls back when it throws.
   * Inside `fn` use only `trx`: on PGlite the single connection is held by the transaction.
   */
  transaction<R>(fn: (trx: Transaction<T>) => Promise<R>): Promise<R>;
  /** Subscribes to NOTIFY on `channel`; resolves to an unsubscribe function. */
  listen(channel: string, onNotify: (payload: string) => void): Promise<() => Promise<void>>;
  /**
   * Notifies `channel`'s listeners, outside any transaction (after the caller's commit): a NOTIFY
   * on PostgreSQL, which reaches every process; on PGlite, whose only process is this one, a call
   * of this instance's listeners without a statement (a NOTIFY there is a transaction of its own,
   * committed on the single connection every request waits for).
   */
  notify(channel: string, payload: string): Promise<void>;
  /**
   * Runs a hot statement outside any transaction (never call it inside `transaction`). It is
   * prepared once under `name` — per pooled connection on PostgreSQL, per instance on PGlite
   * (pglite-prepared.ts) — so a call binds and executes without parsing and planning again.
   * Behind a transaction-mode pooler (`DatabaseOptions.pooler`) it runs as an unnamed statement:
   * the next call may reach another server connection, which never saw the name.
   * `name` must always go with the same `sql`.
   */
  readonly prepared: <R>(name: string, sql: string, parameters: readonly unknown[]) => Promise<R[]>;
  /**
   * The tuples of `select` through `COPY … TO … (FORMAT binary)`: every field as its raw bytes (a
   * bytea value as itself, an integer big-endian; binary-copy.ts), where any other read brings
   * bytea through text. COPY takes no parameters, so `select` must be built from values that
   * cannot carry SQL (`sqlLiteral`). PostgreSQL streams the tuples from a pooled connection with
   * backpressure; PGlite answers the whole result at once, so keep results small (a batch of
   * chunks). Outside any transaction, like `prepared`.
   */
  copyRows(select: string): AsyncIterable<CopyRow>;
  /** Fails when the database cannot answer. */
  ping(): Promise<void>;
  /** The PostgreSQL pool's connections now; undefined on PGlite (one connection, no pool). */
  poolUsage(): PoolUsage | undefined;
  close(): Promise<void>;
  /**
   * The same handle typed for a part's own slice of the tables (`HanseTables`): checked, a slice
   * this handle's tables do not hold with the same columns does not compile.
   */
  as<U>(...slice: T extends U ? [] : [never]): Database<U>;
}

export interface PoolUsage {
  max: number;
  /** Open connections, idle ones included. */
  total: number;
  idle: number;
  /** Callers waiting for a connection. */
  waiting: number;
}

export interface DatabaseOptions {
  url?: string | undefined;
  dataDir?: string | undefined;
  /** In-memory PGlite (tests); ignored when `url` is set. */
  memory?: boolean;
  /** Seeds a PGlite instance from a data-directory dump (test templates). */
  loadDataDir?: Blob;
  /**
   * How often to run the VACUUM and ANALYZE the tables need where no autovacuum does (PGlite
   * always; PostgreSQL while its `autovacuum` is off; maintenance.ts); 0 turns it off. Default 10 s.
   */
  maintenanceIntervalMs?: number;
  /** Each maintenance round's outcome (for the log). */
  onMaintenance?: (report: MaintenanceReport) => void;
  poolSize?: number;
  /**
   * `transaction`: `url` names a transaction-mode pooler (PgBouncer, RDS Proxy, Supavisor), so
   * nothing may rely on a session: unnamed statements only, no LISTEN on `url`, no session
   * advisory lock (docs/operations.md "Connection poolers").
   */
  pooler?: "transaction" | undefined;
  /**
   * Behind a pooler: a direct connection to the same database, for what needs a session (LISTEN,
   * the maintenance lock). Unset: workers poll, maintenance runs without the lock.
   */
  directUrl?: string | undefined;
}

// Timestamps and bigint counters come back as JS values we control.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));
pg.types.setTypeParser(pg.types.builtins.TIMESTAMPTZ, (v) => new Date(v));

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  if (options.url) return openPostgres(options.url, options.poolSize ?? 10, options);
  return openPglite(options);
}

const defaultMaintenanceIntervalMs = 10_000;

function maintain(round: () => Promise<TableChore[]>, options: DatabaseOptions) {
  const intervalMs = options.maintenanceIntervalMs ?? defaultMaintenanceIntervalMs;
  if (intervalMs <= 0) return undefined;
  return scheduleMaintenance(round, intervalMs, options.onMaintenance ?? (() => undefined));
}

/** PGlite start parameters that set PostgreSQL settings (`-c name=value` each). */
const startParams = (settings: readonly (readonly [string, string])[]): readonly string[] =>
  settings.flatMap(([name, value]) => ["-c", `${name}=${value}`]);

/**
 * The WAL bounds of an embedded database, as PGlite start parameters (part of `pgliteSettings`;
 * the maintenance rounds checkpoint once the WAL grows past max_wal_size).
 */
export const pgliteWalSettings = startParams([
  ["min_wal_size", "32MB"],
  ["max_wal_size", "64MB"],
]);

/**
 * PostgreSQL's defaults are sized for a server of its own; PGlite runs it inside this process,
 * where its memory is ours and never shrinks. Idle RSS of `hanse serve` after a restart: 406 MiB
 * with the defaults (128 MB shared_buffers, touched at start), 235 MiB with these (`npm run bench
 * -- footprint`, docs/decisions.md). Reads that miss the buffers go to the operating system's page
 * cache, as on a PostgreSQL server with small shared_buffers. max_wal_size bounds the WAL (1 GB
 * by default) through the maintenance rounds, as single-user mode never checkpoints by itself.
 */
const pgliteSettings = [
  ...startParams([
    ["shared_buffers", "16MB"],
    ["maintenance_work_mem", "16MB"],
  ]),
  ...pgliteWalSettings,
];

async function openPglite(options: DatabaseOptions): Promise<Database> {
  let dataDir: string | undefined;
  if (!options.memory) {
    // The caller makes the directory (the container does, with a `mkdir -p` that cannot hang).
    dataDir = options.dataDir ?? "./data";
  }
  const pglite = await PGlite.create({
    ...(dataDir ? { dataDir: `${dataDir}/pgdata` } : {}),
    ...(options.loadDataDir ? { loadDataDir: options.loadDataDir } : {}),
    // Every commit is written through to the file system before it is acknowledged.
    relaxedDurability: false,
    startParams: [...PGlite.defaultStartParams, ...pgliteSettings],
    parsers: { 20: (v: string) => Number(v) },
  });
  // Every statement but the prepared ones (which take their turn themselves) goes through `turns`.
  const turns = takingTurns(pglite);
  const db = new Kysely<HanseTables>({ dialect: new PGliteDialect({ pglite: turns }) });
  const local = new Map<string, Set<(payload: string) => void>>();
  const maintenance = maintain(() => maintainPglite(turns), options);
  return wrap("pglite", db, {
    beforeClose: () => maintenance?.stop(),
    prepared: createPglitePrepared(pglite),
    copyRows: async function* (select) {
      const result = await turns.query(`COPY (${select}) TO '/dev/blob' (FORMAT binary)`);
      const blob = result.blob;
      if (!blob) throw new Error("PGlite answered COPY TO '/dev/blob' without a blob");
      const parser = new BinaryCopyParser();
      yield* parser.push(Buffer.from(await blob.arrayBuffer()));
      if (!parser.complete) throw new Error("binary COPY ended early");
    },
    listen: async (channel, onNotify) => {
      // NOTIFY in SQL (inside a transaction, say) arrives through PGlite; `notify` calls directly.
      const unsubscribe = await pglite.listen(channel, onNotify);
      let listeners = local.get(channel);
      if (!listeners) local.set(channel, (listeners = new Set()));
      const own = (payload: string): void => {
        onNotify(payload);
      };
      listeners.add(own);
      return async () => {
        listeners.delete(own);
        await unsubscribe();
      };
    },
    notify: async (channel, payload) => {
      // As NOTIFY delivers: later, never inside the caller's own call.
      await Promise.resolve();
      for (const onNotify of local.get(channel) ?? []) onNotify(payload);
    },
  });
}

/**
 * A Date parameter as ISO 8601 text (UTC). node-postgres formats dates in local time field by
 * field, about 1 µs each, and a hot statement binds up to five; every timestamp column is
 * `timestamptz`, so both forms mean the same instant.
 */
const isoDates = (value: unknown): unknown => (value instanceof Date ? value.toISOString() : value);

function openPostgres(url: string, max: number, options: DatabaseOptions): Database {
  const pool = new pg.Pool({ connectionString: url, max, idleTimeoutMillis: 30_000, keepAlive: true });
  // A lost connection (server restart, failover, network) must not end the process: an idle
  // client's error reaches the pool, which replaces the client; a checked-out client (between two
  // statements of a transaction) has no listener of the pool's, so each client gets its own. The
  // statement that needed it fails and is answered 503; the pool drops the client on release.
  pool.on("error", () => undefined);
  pool.on("connect", (client) => client.on("error", () => undefined));
  const pooled = options.pooler === "transaction";
  // The URL where a session lasts: the server itself, or behind a pooler the direct URL if any.
  const sessionUrl = pooled ? options.directUrl : url;
  const sessionPool =
    pooled && sessionUrl ? new pg.Pool({ connectionString: sessionUrl, max: 1, keepAlive: true }) : undefined;
  sessionPool?.on("error", () => undefined);
  sessionPool?.on("connect", (client) => client.on("error", () => undefined));
  const maintenance = maintain(
    () =>
      pooled && !sessionPool ? maintainPostgresWithoutSession(pool) : maintainPostgres(sessionPool ?? pool),
    options,
  );
  const db = new Kysely<HanseTables>({ dialect: new PostgresDialect({ pool }) });
  const prepared = pooled
    ? async <R>(_name: string, text: string, parameters: readonly unknown[]) =>
        (await pool.query<R & pg.QueryResultRow>({ text, values: parameters.map(isoDates) })).rows
    : async <R>(name: string, text: string, parameters: readonly unknown[]) =>
        (await pool.query<R & pg.QueryResultRow>({ name, text, values: parameters.map(isoDates) })).rows;
  return wrap("postgres", db, {
    beforeClose: async () => {
      await maintenance?.stop();
      await sessionPool?.end();
    },
    prepared,
    copyRows: (select) => pgCopyRows(pool, select),
    poolUsage: () => ({ max, total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    // pg_notify is a statement like any other: through a pooler it reaches every listener too.
    notify: async (channel, payload) => {
      await prepared("hanse_notify", "SELECT pg_notify($1, $2)", [channel, payload]);
    },
    listen: async (channel, onNotify) => {
      // Through a transaction pooler a LISTEN would stay on a server connection that serves others.
      if (!sessionUrl)
        throw new Error("LISTEN needs a session: behind a transaction pooler, set a direct URL");
      const client = new pg.Client({ connectionString: sessionUrl });
      client.on("error", () => undefined);
      await client.connect();
      client.on("notification", (message) => {
        if (message.channel === channel) onNotify(message.payload ?? "");
      });
      await client.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
      return async () => {
        await client.end().catch(() => undefined);
      };
    },
  });
}

function wrap(
  kind: DatabaseKind,
  db: Kysely<HanseTables>,
  edge: Pick<Database, "listen" | "notify" | "prepared" | "copyRows"> & {
    poolUsage?: Database["poolUsage"];
    beforeClose?: () => Promise<void> | undefined;
  },
): Database {
  const handle: Database = {
    kind,
    tuning: databaseTuning[kind],
    db,
    transaction: (fn) => db.transaction().execute(fn),
    listen: edge.listen,
    notify: edge.notify,
    prepared: edge.prepared,
    copyRows: edge.copyRows,
    ping: async () => {
      await db.selectNoFrom((eb) => eb.val(1).as("one")).execute();
    },
    close: async () => {
      await edge.beforeClose?.();
      await db.destroy();
    },
    poolUsage: edge.poolUsage ?? (() => undefined),
    // The one view of a handle as another table type; `as` checks that the slice is one.
    as: <U>() => handle as unknown as Database<U>,
  };
  return handle;
}
