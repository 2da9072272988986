import { uuidv7SqlText } from "../../../platform/db/sql-uuid.js";
import { insertJobsSql, jobSpecSql } from "../../../platform/jobs/index.js";
import { webhookCoalesceKey, webhookDeliveryJobSpec } from "./webhook-delivery.job.js";

// The coalesce key of a subscription's delivery job, spelled in SQL as `webhookCoalesceKey` does.
const coalesceKeySql = (tenantId: string, subscriptionId: string) =>
  webhookCoalesceKey("' || " + tenantId + " || '", "' || " + subscriptionId + " || '");

/** SQL expressions of an operator event, evaluated per row of the relation it is raised for. */
export interface OperatorEventSql {
  tenantId: string;
  /** A text literal, one of the operator event types. */
  type: string;
  occurredAt: string;
  /** jsonb: the subject's ids. */
  subject: string;
}

/**
 * `insertOperatorDeliveries` for a statement of another part that raises an operator event per
 * row of `from` in its own round trip (the overdue sweep): two data-modifying CTEs to append after
 * its own, `<name>` inserting the deliveries (one event id per row of `from`) and `<name>_jobs`
 * waking each subscription's delivery job (coalesced). Nothing outside this part spells the
 * deliveries' columns.
 */
export function raiseOperatorEventsSql(name: string, from: string, event: OperatorEventSql): string {
  return `${name}_events AS (
  SELECT ${event.tenantId} AS tenant_id, ${uuidv7SqlText(event.occurredAt)} AS event_id,
    ${event.occurredAt} AS at,
    ${event.subject} AS subject
  FROM ${from}
), ${name} AS (
  INSERT INTO webhook_deliveries (tenant_id, id, subscription_id, event_id, event_type, subject,
    occurred_at, state, attempts, next_attempt_at, created_at)
  SELECT s.tenant_id, ${uuidv7SqlText("e.at")}, s.id, e.event_id, ${event.type}, e.subject, e.at,
    'pending', 0, e.at, e.at
  FROM ${name}_events AS e INNER JOIN webhook_subscriptions AS s ON s.tenant_id = e.tenant_id
    AND s.enabled AND s.event_types IS NOT NULL AND ${event.type} = ANY(s.event_types)
  RETURNING tenant_id, subscription_id, occurred_at
), ${name}_jobs AS (
  ${insertJobsSql(
    `(SELECT tenant_id, subscription_id, min(occurred_at) AS at FROM ${name}
      GROUP BY tenant_id, subscription_id) AS n`,
    {
      id: uuidv7SqlText("n.at"),
      tenantId: "n.tenant_id",
      ...jobSpecSql(webhookDeliveryJobSpec),
      key: "NULL",
      coalesceKey: `'${coalesceKeySql("n.tenant_id", "n.subscription_id")}'`,
      payload: "jsonb_build_object('tenantId', n.tenant_id, 'subscriptionId', n.subscription_id)",
      runAt: "n.at",
      createdAt: "n.at",
    },
  )}
)`;
}
