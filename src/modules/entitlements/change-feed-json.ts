import type { Entitlement } from "@hanse/client/protocol";
import { Change, EntitlementSchema } from "./entitlements.schemas.js";

/*
 * A change as the feed sends it (rules/contract §5): JSON text with the documented key order and
 * no spaces, like every other response. It is written once, with the change, into
 * `entitlement_changes.feed_json`, so a feed page is the stored texts joined: no page is parsed
 * and written again per read (issue 35 item 5, docs/decisions.md "The feed's changes are stored
 * as they are sent").
 */

/** Keys in the documented order: the response schemas' (jsonb sorts a stored object's keys). */
const inSchemaOrder = <T extends object>(keys: string[], value: T): T =>
  Object.fromEntries(keys.map((key) => [key, (value as Record<string, unknown>)[key]])) as T;
const entitlementKeys = Object.keys(EntitlementSchema.properties);
const changeKeys = Object.keys(Change.properties);

export interface FeedChange {
  sequence: number;
  eventId: string;
  actorId: string;
  /** The entitlement after the change; null when it was deleted. */
  entitlement: Entitlement | null;
  occurredAt: Date;
}

/** The feed's JSON text of one change. */
export const changeFeedJson = (change: FeedChange): string =>
  JSON.stringify(
    inSchemaOrder(changeKeys, {
      sequence: change.sequence,
      eventId: change.eventId,
      type: "entitlement.changed",
      actorId: change.actorId,
      entitlement: change.entitlement && inSchemaOrder(entitlementKeys, change.entitlement),
      occurredAt: change.occurredAt.toISOString(),
    }),
  );
