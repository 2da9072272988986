import type { AuditTables } from "../../platform/audit/index.js";

import type { EntitlementStatus } from "@hanse/client/protocol";
import { tablesOf } from "../../platform/db/tables.js";
export type { EntitlementStatus };

export interface EntitlementTenantsTable {
  tenant_id: string;
  created_at: Date;
}

export interface EntitlementAppsTable {
  tenant_id: string;
  id: string;
  name: string;
  capabilities: string[];
  created_at: Date;
}

/** One counter row per (tenant, app): the lock that orders a stream's changes. */
export interface EntitlementStreamsTable {
  tenant_id: string;
  app_id: string;
  last_sequence: number;
  /** Changes up to this sequence have been pruned (0: none). */
  pruned_through: number;
}

export interface EntitlementsTable {
  tenant_id: string;
  app_id: string;
  actor_id: string;
  status: EntitlementStatus;
  plan: string;
  capabilities: string[];
  valid_from: Date;
  valid_until: Date | null;
  sequence: number;
  created_at: Date;
  updated_at: Date;
}

export interface EntitlementChangesTable {
  tenant_id: string;
  app_id: string;
  sequence: number;
  event_id: string;
  type: string;
  actor_id: string;
  /** The entitlement after the change (its wire form), as JSON text on insert. */
  entitlement: unknown;
  /** The entitlement before the change (null: none), to serve snapshots pinned before it. */
  previous: unknown;
  occurred_at: Date;
  /** The principal that made the change (null: recorded before principals were). */
  changed_by: string | null;
  /**
   * The change as the feed sends it: JSON text in the documented key order (change-feed-json.ts);
   * null when a version before 2026-11-29T1200 recorded it during a rolling upgrade.
   */
  feed_json: string | null;
}

/** A committed entitlement change, as its webhook deliveries need it (rules/interface C rule 5: no rights). */
export interface CommittedChange {
  tenantId: string;
  appId: string;
  sequence: number;
  eventId: string;
  actorId: string;
  occurredAt: Date;
}

/** The event types of operator subscriptions (rules/contract §8). */
export const operatorEventTypes = [
  "exchange.upload.rejected",
  "exchange.upload.failed",
  "exchange.delivery.overdue",
  "exchange.delivery.failed",
  "workflows.request.failed",
] as const;
export type OperatorEventType = (typeof operatorEventTypes)[number];

/** What an operator event is about: ids only, never payload bytes (rules/contract §8). */
export interface OperatorEventSubject {
  uploadId?: string;
  deliveryAttemptId?: string;
  connectionId?: string;
  requestId?: string;
}

/** An operator event raised in the transaction of the state change it reports. */
export interface OperatorEvent {
  tenantId: string;
  type: OperatorEventType;
  occurredAt: Date;
  subject: OperatorEventSubject;
}

export interface ServiceBindingsTable {
  tenant_id: string;
  id: string;
  app_id: string;
  audience: string;
  required_capabilities: string[];
  created_at: Date;
  /** Offboarded (rules/contract §7): every credential of the binding is refused from then on. */
  revoked_at: Date | null;
}

export interface ServiceCredentialsTable {
  id: string;
  tenant_id: string;
  binding_id: string;
  /** The secret sealed with AES-GCM (sealed-secrets.ts): needed to verify HMACs. */
  secret: string;
  created_at: Date;
  /** Set when rotated out: the secret stays valid until then. */
  expires_at: Date | null;
}

export interface ServiceNoncesTable {
  credential_id: string;
  nonce: string;
  expires_at: Date;
}

export interface EntitlementSigningKeysTable {
  tenant_id: string;
  kid: string;
  public_jwk: unknown;
  /** PKCS#8 PEM, sealed. */
  private_key: string;
  created_at: Date;
  /** Signs from then on (null: published, not yet scheduled to sign). */
  activates_at: Date | null;
  /** Signs no more from then on (a newer key took over). */
  retires_at: Date | null;
  /** Leaves the JWKS then (every grant it signed has expired). */
  expires_at: Date | null;
  withdrawn_at: Date | null;
}

export interface WebhookSubscriptionsTable {
  tenant_id: string;
  id: string;
  /** Null for a tenant's operator subscription (rules/contract §8). */
  binding_id: string | null;
  url: string;
  /** The app of the binding, copied: changes find their subscriptions by it (null: operator). */
  app_id: string | null;
  /** An operator subscription's event types (rules/contract §8); null for a binding's subscription. */
  event_types: string[] | null;
  /** The Standard Webhooks secret, sealed. */
  secret: string;
  enabled: boolean;
  disabled_reason: string | null;
  /** Since when every delivery failed (null: the last one succeeded). */
  failing_since: Date | null;
  /** During a secret rotation: the old secret (sealed), signed with as well until it expires. */
  previous_secret: string | null;
  previous_secret_expires_at: Date | null;
  created_at: Date;
  /** Deleted by an administrator (rules/contract §7): kept with its attempts, invisible, never delivered again. */
  deleted_at: Date | null;
}

export type WebhookDeliveryState = "pending" | "delivered" | "failed" | "cancelled";

export interface WebhookDeliveriesTable {
  tenant_id: string;
  id: string;
  subscription_id: string;
  /** An entitlement change's app, sequence and actor; null on an operator event's delivery. */
  app_id: string | null;
  sequence: number | null;
  event_id: string;
  actor_id: string | null;
  /** An operator event's type and subject (ids only); null on an entitlement change's delivery. */
  event_type: string | null;
  subject: OperatorEventSubject | null;
  occurred_at: Date;
  state: WebhookDeliveryState;
  attempts: number;
  next_attempt_at: Date;
  last_status: number | null;
  last_error: string | null;
  /** While a batch's POSTs run: the delivery is not due again before then. */
  lease_until: Date | null;
  created_at: Date;
  completed_at: Date | null;
}

export interface WebhookAttemptsTable {
  tenant_id: string;
  id: string;
  subscription_id: string;
  delivery_id: string;
  sequence: number | null;
  attempt: number;
  attempted_at: Date;
  status: number | null;
  latency_ms: number;
  error_class: string | null;
}

export interface EntitlementTables extends AuditTables {
  entitlement_tenants: EntitlementTenantsTable;
  entitlement_apps: EntitlementAppsTable;
  entitlement_streams: EntitlementStreamsTable;
  entitlements: EntitlementsTable;
  entitlement_changes: EntitlementChangesTable;
  service_bindings: ServiceBindingsTable;
  service_credentials: ServiceCredentialsTable;
  service_nonces: ServiceNoncesTable;
  entitlement_signing_keys: EntitlementSigningKeysTable;
  webhook_subscriptions: WebhookSubscriptionsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
}

/** A transaction over more tables seen as one over the entitlements module's own (`tablesOf`). */
export const entitlementTables = tablesOf<EntitlementTables>();

declare module "../../platform/db/tables.js" {
  // One part's tables in the whole database (`HanseTables`, declaration merging).
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface HanseTables extends EntitlementTables {}
}
