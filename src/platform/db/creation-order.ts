import { sql, type SelectQueryBuilder } from "kysely";

/** Where a list in creation order resumes: the last row of the previous page. */
export interface CreationPosition {
  createdAt: string;
  id: string;
}

/** The order of an admin list (rules/contract §8: `order=asc|desc`, default `asc`). */
export type ListOrder = "asc" | "desc";

/**
 * The keyset condition "after `after` in `order`" on `(created_at, id)` (the id a uuidv7): a
 * descending list compares `<`, so rows added while an operator pages (newer, so before the first
 * page) are neither repeated nor shifted into a later page.
 */
export function afterPosition(after: CreationPosition, order: ListOrder = "asc") {
  const at = new Date(after.createdAt);
  const cmp = sql.raw(order === "desc" ? "<" : ">");
  return sql<boolean>`(created_at ${cmp} ${at} OR (created_at = ${at} AND id ${cmp} ${after.id}))`;
}

/**
 * One page of a single-table query in creation order (`created_at`, then `id`; reversed for
 * `desc`) after `after`, with one row more than `limit` so the caller can tell whether more
 * follow (see `pageOf`). Every index ending in `(created_at, id)` serves both orders.
 */
export function creationPage<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  limit: number,
  after: CreationPosition | undefined,
  order: ListOrder = "asc",
): SelectQueryBuilder<DB, TB, O> {
  const page = after ? query.where(afterPosition(after, order)) : query;
  const direction = sql.raw(order);
  return page
    .orderBy(sql`created_at ${direction}`)
    .orderBy(sql`id ${direction}`)
    .limit(limit + 1);
}

/**
 * One page of a list ordered by one unique key (a revision number, a kind, an actor id) after
 * `after`, in `order`: the same keyset as `creationPage` on that key alone.
 */
export function keyPage<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  key: string,
  limit: number,
  after: string | number | undefined,
  order: ListOrder = "asc",
): SelectQueryBuilder<DB, TB, O> {
  const column = sql.ref(key);
  const page =
    after === undefined
      ? query
      : query.where(sql<boolean>`${column} ${sql.raw(order === "desc" ? "<" : ">")} ${after}`);
  return page.orderBy(sql`${column} ${sql.raw(order)}`).limit(limit + 1);
}
