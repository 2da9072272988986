import { sql, type SelectQueryBuilder } from "kysely";

/** Where a list in creation order resumes: the last row of the previous page. */
export interface CreationPosition {
  createdAt: string;
  id: string;
}

/**
 * One page of a single-table query in creation order (`created_at`, then `id`) after `after`,
 * with one row more than `limit` so the caller can tell whether more follow (see `pageOf`).
 */
export function creationPage<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  limit: number,
  after: CreationPosition | undefined,
): SelectQueryBuilder<DB, TB, O> {
  let page = query;
  if (after) {
    const at = new Date(after.createdAt);
    page = page.where(sql<boolean>`(created_at > ${at} OR (created_at = ${at} AND id > ${after.id}))`);
  }
  return page
    .orderBy(sql`created_at`)
    .orderBy(sql`id`)
    .limit(limit + 1);
}
