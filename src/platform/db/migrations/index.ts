import type { Migration } from "kysely/migration";
import * as foundation from "./2026-11-21T2200-foundation.js";
import * as workflows from "./2026-11-21T2300-workflows.js";
import * as exchange from "./2026-11-21T2330-exchange.js";
import * as blobChunkCompression from "./2026-11-22T0100-blob-chunk-compression.js";
import * as dropUnusedRequestIndex from "./2026-11-22T0300-drop-unused-request-index.js";
import * as blobChunkToastTarget from "./2026-11-24T1900-blob-chunk-toast-target.js";
import * as entitlements from "./2026-11-26T1000-entitlements.js";
import * as webhookDeliveries from "./2026-11-26T1100-webhook-deliveries.js";
import * as webhookBatchDelivery from "./2026-11-27T1000-webhook-batch-delivery.js";
import * as jobTraceContext from "./2026-11-27T1100-job-trace-context.js";
import * as uploadFindings from "./2026-11-27T1200-upload-findings.js";
import * as entitlementChangePrincipal from "./2026-11-27T1300-entitlement-change-principal.js";
import * as exchangeOperatorFilters from "./2026-11-27T1210-exchange-operator-filters.js";
import * as transitionRequestLists from "./2026-11-27T1300-transition-request-lists.js";
import * as sharedLimits from "./2026-11-28T0600-shared-limits.js";
import * as userRoles from "./2026-11-28T0700-user-roles.js";
import * as duplicateInterchanges from "./2026-11-28T1000-duplicate-interchanges.js";
import * as userInvitations from "./2026-11-28T1000-user-invitations.js";
import * as passwordResets from "./2026-11-28T1100-password-resets.js";
import * as sessionActivity from "./2026-11-28T1300-session-activity.js";
import * as offboarding from "./2026-11-28T1300-offboarding.js";
import * as auditRecordShape from "./2026-11-28T1300-audit-record-shape.js";
import * as singleSignOn from "./2026-11-28T1400-single-sign-on.js";
import * as exchangeSearch from "./2026-11-28T1400-exchange-search.js";
import * as auditSeals from "./2026-11-28T1700-audit-seals.js";
import * as ssoUserinfo from "./2026-11-28T1710-sso-userinfo.js";
import * as collectionDeadlines from "./2026-11-28T1800-collection-deadlines.js";
import * as operatorNotifications from "./2026-11-28T1900-operator-notifications.js";
import * as partnerListFilters from "./2026-11-29T0800-partner-list-filters.js";
import * as entitlementChangeFeedJson from "./2026-11-29T1200-entitlement-change-feed-json.js";

/** Every migration, keyed by its ISO-dated name; applied in name order. */
export const migrations: Record<string, Migration> = {
  "2026-11-21T2200-foundation": foundation,
  "2026-11-21T2300-workflows": workflows,
  "2026-11-21T2330-exchange": exchange,
  "2026-11-22T0100-blob-chunk-compression": blobChunkCompression,
  "2026-11-22T0300-drop-unused-request-index": dropUnusedRequestIndex,
  "2026-11-24T1900-blob-chunk-toast-target": blobChunkToastTarget,
  "2026-11-26T1000-entitlements": entitlements,
  "2026-11-26T1100-webhook-deliveries": webhookDeliveries,
  "2026-11-27T1000-webhook-batch-delivery": webhookBatchDelivery,
  "2026-11-27T1100-job-trace-context": jobTraceContext,
  "2026-11-27T1200-upload-findings": uploadFindings,
  "2026-11-27T1210-exchange-operator-filters": exchangeOperatorFilters,
  "2026-11-27T1300-transition-request-lists": transitionRequestLists,
  "2026-11-27T1300-entitlement-change-principal": entitlementChangePrincipal,
  "2026-11-28T0600-shared-limits": sharedLimits,
  "2026-11-28T0700-user-roles": userRoles,
  "2026-11-28T1000-duplicate-interchanges": duplicateInterchanges,
  "2026-11-28T1000-user-invitations": userInvitations,
  "2026-11-28T1100-password-resets": passwordResets,
  "2026-11-28T1300-session-activity": sessionActivity,
  "2026-11-28T1300-offboarding": offboarding,
  "2026-11-28T1300-audit-record-shape": auditRecordShape,
  "2026-11-28T1400-single-sign-on": singleSignOn,
  "2026-11-28T1400-exchange-search": exchangeSearch,
  "2026-11-28T1700-audit-seals": auditSeals,
  "2026-11-28T1710-sso-userinfo": ssoUserinfo,
  "2026-11-28T1800-collection-deadlines": collectionDeadlines,
  "2026-11-28T1900-operator-notifications": operatorNotifications,
  "2026-11-29T0800-partner-list-filters": partnerListFilters,
  "2026-11-29T1200-entitlement-change-feed-json": entitlementChangeFeedJson,
};
