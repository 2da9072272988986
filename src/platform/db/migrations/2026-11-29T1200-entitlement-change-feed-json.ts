import type { Kysely } from "kysely";
import { runStatements } from "./run-statements.js";

// Issue 35 item 5 (rules/contract §5). A change keeps the JSON text the feed sends for it, written
// once with the change (src/modules/entitlements/change-feed-json.ts), so a feed page is its
// changes' texts joined. Changes recorded before this migration get the same text from the
// expression below: keys in the documented order, no spaces, strings escaped by to_json (which
// escapes exactly what JSON.stringify does); test/e2e/entitlements-feed.test.ts checks it
// byte for byte against the Node writer. The column stays nullable: during a rolling upgrade the
// previous version still records changes without it, and the feed's page statement writes those
// with the same expression (docs/operations.md "Upgrades").
/** The feed text of change `c` from its columns (what the migration gives existing changes). */
export const changeFeedJsonExpression = `
      '{"sequence":' || c.sequence || ',"eventId":"' || c.event_id || '","type":' || to_json(c.type)::text
      || ',"actorId":' || to_json(c.actor_id)::text || ',"entitlement":'
      || CASE WHEN c.entitlement IS NULL OR jsonb_typeof(c.entitlement) = 'null' THEN 'null' ELSE
        '{"appId":' || to_json(c.entitlement->>'appId')::text
        || ',"actorId":' || to_json(c.entitlement->>'actorId')::text
        || ',"status":' || to_json(c.entitlement->>'status')::text
        || ',"plan":' || to_json(c.entitlement->>'plan')::text
        || ',"capabilities":[' || coalesce((SELECT string_agg(to_json(t.capability)::text, ',' ORDER BY t.position)
            FROM jsonb_array_elements_text(c.entitlement->'capabilities') WITH ORDINALITY AS t(capability, position)), '')
        || '],"validFrom":' || to_json(c.entitlement->>'validFrom')::text
        || ',"validUntil":' || coalesce(to_json(c.entitlement->>'validUntil')::text, 'null')
        || ',"sequence":' || (c.entitlement->'sequence')::text
        || ',"updatedAt":' || to_json(c.entitlement->>'updatedAt')::text || '}' END
      || ',"occurredAt":"' || to_char(c.occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"}'`;

/** Writes `feed_json` of every change from its columns. */
export const changeFeedJsonFromColumns = `UPDATE entitlement_changes c SET feed_json = ${changeFeedJsonExpression}`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(
    db,
    `
    ALTER TABLE entitlement_changes ADD COLUMN feed_json text;
    ${changeFeedJsonFromColumns};
  `,
  );
}
