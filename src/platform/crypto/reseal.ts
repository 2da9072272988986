import { sql, type Kysely, type RawBuilder } from "kysely";
import { openSealedSecret, sealedKeyId, sealSecret, type SealingKeys } from "./sealed-secrets.js";
import type { HanseTables } from "../db/tables.js";

/** A stored sealed value, named by its row (`tenantId`, `id`: the row's key in its owner's table). */
export interface SealedRow {
  tenantId: string;
  id: string;
  sealed: string;
}

/**
 * One column of sealed values, read and written by the table's owner (one writer per table): the
 * key rotation (`resealValues`) and the start-up check (`checkSealedValues`) go through it.
 */
export interface SealedColumn {
  /** What the values are, for reports and errors ("webhook secret"). */
  what: string;
  keys: () => Promise<SealingKeys>;
  /**
   * Up to `limit` values NOT sealed under the key `currentKeyId` (no `v2.<currentKeyId>.` prefix),
   * ordered by (tenantId, id), after the row `after` when given.
   */
  notUnder(
    currentKeyId: string,
    after: { tenantId: string; id: string } | undefined,
    limit: number,
  ): Promise<SealedRow[]>;
  /** Replaces `from` by `to` if the row still holds `from` (compare and set); true when it did. */
  replace(row: SealedRow, to: string): Promise<boolean>;
}

export interface ResealReport {
  what: string;
  /** Values re-sealed under the current key by this run. */
  resealed: number;
  /** Values changed by someone else meanwhile (a rotation of that secret): sealed under the current key by them. */
  changedMeanwhile: number;
  /** Values no configured key opens (left unchanged). */
  unreadable: number;
  /** The key ids of the unreadable values (never a key). */
  unknownKeyIds: string[];
}

/**
 * SQL of an owner's `notUnder`: `column` does not start with `v2.<keyId>.` (key ids are base64url,
 * so no LIKE: `_` would be a wildcard).
 */
export function notSealedUnder(column: string, keyId: string): RawBuilder<boolean> {
  const prefix = `v2.${keyId}.`;
  return sql<boolean>`left(${sql.ref(column)}, ${prefix.length}) <> ${prefix}`;
}

/** SQL of an owner's `notUnder`: the rows after `after` in (tenant, id) order; no bound without one. */
export function rowsAfter(
  tenantColumn: string,
  idColumn: string,
  after: { tenantId: string; id: string } | undefined,
): RawBuilder<boolean> {
  return after
    ? sql<boolean>`(${sql.ref(tenantColumn)}, ${sql.ref(idColumn)}) > (${after.tenantId}, ${after.id})`
    : sql<boolean>`true`;
}

/**
 * An owner's `notUnder` (reads only; the owner writes its own `replace`): the sealed values of
 * `table.column` (NULLs skipped) whose rows are keyed by (`tenant_id`, `idColumn`).
 */
export function sealedValuesOf(
  db: Kysely<HanseTables>,
  table: string,
  idColumn: string,
  column: string,
): SealedColumn["notUnder"] {
  return async (keyId, after, limit) =>
    (
      await sql<SealedRow>`
        SELECT tenant_id AS "tenantId", ${sql.ref(idColumn)} AS id, ${sql.ref(column)} AS sealed
        FROM ${sql.table(table)}
        WHERE ${sql.ref(column)} IS NOT NULL AND ${notSealedUnder(column, keyId)}
          AND ${rowsAfter("tenant_id", idColumn, after)}
        ORDER BY tenant_id, ${sql.ref(idColumn)}
        LIMIT ${limit}`.execute(db)
    ).rows;
}

/**
 * An owner's sealed columns: per column what its values are, the table, the row's id column (the
 * tenant's is `tenant_id`), the column, and the owner's compare-and-set UPDATE (setting the
 * column to `to` where it still holds `row.sealed`; the owner writes it, one writer per table).
 */
export function sealedColumnsOf(
  db: Kysely<HanseTables>,
  keys: () => Promise<SealingKeys>,
  columns: readonly (readonly [
    what: string,
    table: string,
    idColumn: string,
    column: string,
    update: (row: SealedRow, to: string) => RawBuilder<unknown>,
  ])[],
): SealedColumn[] {
  return columns.map(([what, table, idColumn, column, update]) => ({
    what,
    keys,
    notUnder: sealedValuesOf(db, table, idColumn, column),
    replace: async (row, to) => ((await update(row, to).execute(db)).numAffectedRows ?? 0n) > 0n,
  }));
}

/** Each value of `column` not sealed under `keys.current`, page by page. */
async function eachOldValue(
  column: SealedColumn,
  batchSize: number,
  visit: (row: SealedRow, keys: SealingKeys) => Promise<void>,
): Promise<void> {
  const keys = await column.keys();
  let after: { tenantId: string; id: string } | undefined;
  for (;;) {
    const rows = await column.notUnder(keys.current.id, after, batchSize);
    for (const row of rows) await visit(row, keys);
    const last = rows.at(-1);
    if (!last || rows.length < batchSize) return;
    after = { tenantId: last.tenantId, id: last.id };
  }
}

/** A value's plain text under `keys`, or undefined when no key of them opens it. */
function tryOpen(keys: SealingKeys, row: SealedRow, what: string): string | undefined {
  try {
    return openSealedSecret(keys, row.sealed, what);
  } catch {
    return undefined;
  }
}

const unknownKeyOf = (sealed: string): string => sealedKeyId(sealed) ?? "none (sealed before key ids)";

/**
 * Re-seals every value of `column` that is not sealed under the current key, `batchSize` rows a
 * statement: idempotent (a second run finds nothing), safe while the service runs (each row is
 * replaced only if it still holds the value read, and both the old and the new value open with
 * the configured keys meanwhile).
 */
export async function resealValues(column: SealedColumn, batchSize: number): Promise<ResealReport> {
  const report: ResealReport = {
    what: column.what,
    resealed: 0,
    changedMeanwhile: 0,
    unreadable: 0,
    unknownKeyIds: [],
  };
  await eachOldValue(column, batchSize, async (row, keys) => {
    const plain = tryOpen(keys, row, column.what);
    if (plain === undefined) {
      report.unreadable++;
      const id = unknownKeyOf(row.sealed);
      if (!report.unknownKeyIds.includes(id)) report.unknownKeyIds.push(id);
      return;
    }
    if (await column.replace(row, sealSecret(keys, plain))) report.resealed++;
    else report.changedMeanwhile++;
  });
  return report;
}

/**
 * The values of `column` that no configured key opens (reads only; values under the current key
 * are not even read). Run at start-up: a missing previous key is reported once, clearly, instead
 * of failing request by request.
 */
export async function checkSealedValues(
  column: SealedColumn,
  batchSize = 500,
): Promise<{ what: string; unreadable: number; unknownKeyIds: string[]; underOldKeys: number }> {
  const result = { what: column.what, unreadable: 0, unknownKeyIds: [] as string[], underOldKeys: 0 };
  await eachOldValue(column, batchSize, (row, keys) => {
    if (tryOpen(keys, row, column.what) === undefined) {
      result.unreadable++;
      const id = unknownKeyOf(row.sealed);
      if (!result.unknownKeyIds.includes(id)) result.unknownKeyIds.push(id);
    } else {
      result.underOldKeys++;
    }
    return Promise.resolve();
  });
  return result;
}

/** What the start-up check reports through. */
interface CheckLogger {
  error(fields: object, message: string): void;
  warn(fields: object, message: string): void;
}

/**
 * The start-up check of every sealed column: one clear line per column with values no configured
 * key opens (the process keeps running: everything else works, and those values fail with the same
 * message when used), and one per column with values still under a previous key.
 */
export async function reportSealedValues(
  logger: CheckLogger,
  columns: readonly SealedColumn[],
): Promise<void> {
  for (const column of columns) {
    const result = await checkSealedValues(column);
    if (result.unreadable > 0) {
      logger.error(
        { what: column.what, count: result.unreadable, keyIds: result.unknownKeyIds },
        `${result.unreadable} ${column.what}(s) are sealed with a key this process does not have: set ` +
          'HANSE_SECRET_KEY_PREVIOUS to the key they were sealed with (see docs/operations.md, "Key management")',
      );
    }
    if (result.underOldKeys > 0) {
      logger.warn(
        { what: column.what, count: result.underOldKeys },
        `${result.underOldKeys} ${column.what}(s) are sealed under a previous key: run \`hanse secret-key reseal\``,
      );
    }
  }
}

/** Re-seals every column in turn (`resealValues`), reporting each when done. */
export async function resealAll(
  columns: readonly SealedColumn[],
  batchSize: number,
  onReport: (report: ResealReport) => void = () => undefined,
): Promise<ResealReport[]> {
  const reports: ResealReport[] = [];
  for (const column of columns) {
    const report = await resealValues(column, batchSize);
    onReport(report);
    reports.push(report);
  }
  return reports;
}

/** One line of `hanse secret-key reseal`. */
export const describeReseal = (report: ResealReport): string =>
  `${report.what}: ${report.resealed} re-sealed, ${report.changedMeanwhile} changed meanwhile, ` +
  `${report.unreadable} unreadable${report.unknownKeyIds.length > 0 ? ` (key ids: ${report.unknownKeyIds.join(", ")})` : ""}`;
