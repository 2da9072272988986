import { sql, type Kysely } from "kysely";
import type { Entitlement } from "@hanse/client/protocol";
import type { Database } from "../../../platform/db/database.js";
import { changeFeedJsonExpression } from "../../../platform/db/migrations/2026-11-29T1200-entitlement-change-feed-json.js";
import type { EntitlementTables } from "../entitlements.tables.js";

/*
 * The read side's statements of the entitlement tables: a snapshot page as of a sequence and a
 * feed page (rules/contract §5). Reads only; the administration writes the tables through
 * ../entitlements.repository.ts.
 */

type Db = Kysely<EntitlementTables>;

/**
 * One snapshot page as of `asOf`: the app's actors after `afterActor` in actor order that had an
 * entitlement then (one more than `limit`, to tell whether more follow), each with its state as
 * of `asOf` — the stored row when its last change is at or before `asOf`, else the state before
 * its first change after `asOf`. Actors that came later are skipped, so pages are full.
 */
export async function snapshotRows(
  db: Db,
  tenantId: string,
  appId: string,
  asOf: number,
  afterActor: string | undefined,
  limit: number,
): Promise<{ actorId: string; entitlement: Entitlement | null }[]> {
  const { rows } = await sql<{ actor_id: string; state: Entitlement | null }>`
    SELECT actor_id, state FROM (SELECT e.actor_id,
      CASE WHEN e.sequence <= ${asOf} THEN json_build_object(
          'appId', e.app_id, 'actorId', e.actor_id, 'status', e.status, 'plan', e.plan,
          'capabilities', e.capabilities,
          'validFrom', to_char(e.valid_from AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
          'validUntil', to_char(e.valid_until AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
          'sequence', e.sequence,
          'updatedAt', to_char(e.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
      ELSE (SELECT c.previous::json FROM entitlement_changes c
            WHERE c.tenant_id = e.tenant_id AND c.app_id = e.app_id AND c.actor_id = e.actor_id
              AND c.sequence > ${asOf}
            ORDER BY c.sequence LIMIT 1)
      END AS state
    FROM entitlements e
    WHERE e.tenant_id = ${tenantId} AND e.app_id = ${appId}
      ${afterActor === undefined ? sql`` : sql`AND e.actor_id > ${afterActor}`}
    ) AS as_of
    WHERE state IS NOT NULL
    ORDER BY actor_id
    LIMIT ${limit + 1}`.execute(db);
  return rows.map((r) => ({ actorId: r.actor_id, entitlement: r.state }));
}

export interface ChangesPageJson {
  lastSequence: number;
  prunedThrough: number;
  /** The page's first and last sequence (null: no changes after `after`). */
  first: number | null;
  last: number | null;
  /** The page's changes in ascending order as a JSON array text, in their wire form. */
  items: string;
}

/**
 * One feed page with the stream's state, in one statement (so both come from one snapshot). Each
 * change's JSON text was written with the change (`feed_json`, ../change-feed-json.ts); the page
 * joins them in sequence order. A change recorded without it (by the version before, during a
 * rolling upgrade) gets the same text from the migration's expression. Undefined when the stream
 * does not exist.
 */
export async function changesPageJson(
  database: Database<EntitlementTables>,
  tenantId: string,
  appId: string,
  after: number,
  limit: number,
): Promise<ChangesPageJson | undefined> {
  const [row] = await database.prepared<{
    last_sequence: number;
    pruned_through: number;
    first: number | null;
    last: number | null;
    items: string | null;
  }>(
    "hanse_entitlement_feed_page",
    `SELECT s.last_sequence, s.pruned_through, p.first, p.last, p.items
    FROM entitlement_streams AS s
    CROSS JOIN LATERAL (
      SELECT min(c.sequence) AS first, max(c.sequence) AS last,
        string_agg(coalesce(c.feed_json, ${changeFeedJsonExpression}), ',' ORDER BY c.sequence) AS items
      FROM (SELECT * FROM entitlement_changes
        WHERE tenant_id = s.tenant_id AND app_id = s.app_id AND sequence > $3
        ORDER BY sequence LIMIT $4) AS c
    ) AS p
    WHERE s.tenant_id = $1 AND s.app_id = $2`,
    [tenantId, appId, after, limit],
  );
  return (
    row && {
      lastSequence: row.last_sequence,
      prunedThrough: row.pruned_through,
      first: row.first,
      last: row.last,
      items: `[${row.items ?? ""}]`,
    }
  );
}
