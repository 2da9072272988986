import type { Kysely, Transaction } from "kysely";

/**
 * The whole database: every table of every part, as Kysely sees it. It is empty here and each part
 * that owns tables adds its own by declaration merging in its `*.tables.ts` (or beside its
 * repository):
 *
 *     declare module "../../platform/db/tables.js" {
 *       interface HanseTables extends IdentityTables {}
 *     }
 *
 * so the platform names no module, no module imports another's tables to build it, and two parts
 * that declared one table name with different columns would not compile. `openDatabase` answers a
 * handle over it; each part takes its own slice (`Database.as`), checked against it.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by declaration merging
export interface HanseTables {}

/** A view of a handle over the tables `Full` as one over its slice `Slice`, for a call into another part. */
export interface TableSliceView<Slice> {
  <Full extends Slice>(db: Transaction<Full>): Transaction<Slice>;
  <Full extends Slice>(db: Kysely<Full>): Kysely<Slice>;
}

/**
 * The checked narrowing of a transaction for a call into the part that owns `Slice`: a part whose
 * transaction spans its own and another part's tables passes `identityTables(trx)` where the other
 * part asks for its slice. `Full extends Slice` is checked at every call, so the caller's database
 * type must hold the callee's tables with the same columns.
 */
export function tablesOf<Slice>(): TableSliceView<Slice> {
  // Kysely's handle is invariant in its tables (they appear in argument positions), so TypeScript
  // cannot see that a handle over more tables serves a query over fewer; `Full extends Slice` is
  // what makes the view sound, and it is checked at each call.
  return ((db: Kysely<unknown>) => db) as unknown as TableSliceView<Slice>;
}
