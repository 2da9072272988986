/** The typed Hanse client. Imports only `protocol/` (docs/architecture.md, "Layers"). */
export { createClient, type ClientOptions, type HanseClient } from "./client.js";
export {
  CursorExpiredError,
  EntrypointMissingError,
  FeedSequenceError,
  HanseApiError,
  HanseNetworkError,
  HanseProtocolError,
  LocationMismatchError,
  WaitTimeoutError,
  type EntrypointMissingReason,
} from "./errors.js";
export {
  createEntitlementProjection,
  createFeedReader,
  createGrantVerifier,
  createServiceClient,
  cursorExpiredCode,
  entitlementServicePaths,
  GrantVerificationError,
  type ChangesPage,
  type Entitlement,
  type EntitlementChange,
  type EntitlementDecision,
  type EntitlementProjection,
  type EntitlementProjectionOptions,
  type FeedEvent,
  type FeedReader,
  type FeedReaderOptions,
  type FollowOptions,
  type GrantResult,
  type GrantVerifier,
  type GrantVerifierOptions,
  type Introspection,
  type Jwk,
  type Jwks,
  type ServiceClient,
  type ServiceClientOptions,
  type SnapshotPage,
  type VerifiedGrant,
} from "./entitlements.js";
export {
  EntitlementMirror,
  type DefectPolicy,
  type EntitlementMirrorOptions,
  type MirrorEvent,
  type SnapshotReason,
} from "./entitlement-mirror.js";
export {
  createJsonFileStorage,
  createMemoryStorage,
  MirrorStateError,
  type MirrorState,
  type MirrorStorage,
} from "./mirror-storage.js";
export {
  createWebhookReceiver,
  type WebhookHeaders,
  type WebhookOutcome,
  type WebhookReceiver,
  type WebhookReceiverOptions,
  type WebhookRequest,
  type WebhookResponse,
} from "./webhook-receiver.js";
export {
  entitlementAdminEntries,
  type App,
  type CreatedServiceBinding,
  type EntitlementsAdminApi,
  type RotatedCredential,
  type ServiceBinding,
  type SetEntitlementInput,
} from "./entitlements-admin.js";
export {
  webhookSubscriptionsEntryId,
  type CreatedWebhookSubscription,
  type RotatedWebhookSecret,
  type WebhookAttempt,
  type WebhookRecovery,
  type WebhookSubscription,
  type OperatorEventType,
  type WebhooksAdminApi,
} from "./webhooks-admin.js";
export {
  adminCollectionEntries,
  type AccessToken,
  type AdminCollectionsApi,
  type ApiKey,
  type AuditEvent,
  type AuditVerification,
  type Collection,
  type Connection,
  type ConnectionChanges,
  type ConnectionStatus,
  type CreatedAccessToken,
  type CreatedApiKey,
  type Delivery,
  type Entity,
  type Partner,
  type ProfileInput,
  type ProfileRevision,
  type Upload,
  type UploadFinding,
  type UploadOutbound,
  type SegmentTree,
} from "./admin-collections.js";
export type { ListQuery, PageQuery } from "./published-call.js";
export { hasAction, isUsableKind, selectAction, selectEntry } from "./entrypoints.js";
export { retryAfterMs } from "./http.js";
export { makeDirectory, readJsonFile, writeFileAtomic } from "./local-files.js";
export {
  systemTenantsEntryId,
  type CreateOptions,
  type ProvisioningRead,
  type TenantsApi,
  type WaitOptions,
} from "./tenants.js";
export type {
  CreateTenantInput,
  CreateTenantResult,
  LoginInput,
  Page,
  ProvisioningState,
  ProvisioningStatus,
  Session,
  Tenant,
} from "./types.js";
export { authSessionsEntryId, type SessionsApi, type UserSession } from "./sessions.js";
export {
  authPasswordEntryId,
  ssoEntryId,
  usersEntryId,
  type InvitedUser,
  type InviteUserInput,
  type OneTimeToken,
  type PasswordApi,
  type SsoApi,
  type SsoAutoCreate,
  type SsoSettings,
  type SsoSettingsInput,
  type UpdateUserInput,
  type User,
  type UserRole,
  type UserStatus,
  type UsersApi,
} from "./users.js";
export type { Discovery, Entrypoint, EntrypointAction, Whoami } from "../protocol/index.js";
// The partner exchange: the HTTP client of a partner key, and the reference worker (`hanse partner sync`).
export {
  createPartnerClient,
  LocalStorageError,
  PartnerApiError,
  PartnerNetworkError,
  type Claim,
  type MailboxItem,
  type PartnerClient,
  type PartnerClientOptions,
  type PayloadRead,
  type Receipt,
  type UploadResult,
} from "./partner.js";
export {
  integrityProblem,
  syncMailbox,
  uploadFile,
  type SyncEvent,
  type SyncOptions,
  type SyncSummary,
} from "./partner-sync.js";
// Workflow transition requests (rules/interface D): request, follow to the outcome.
export {
  createWorkflowsApi,
  createWorkflowsClient,
  isTerminalTransitionState,
  workflowKeyOnTheWire,
  workflowTransitionsEntryId,
  type RequestTransitionOptions,
  type TransitionAccepted,
  type TransitionRequestState,
  type TransitionRequestStatus,
  type TransitionRequestInput,
  type TransitionStatusRead,
  type WaitForTransitionOptions,
  type WorkflowsApi,
} from "./workflows.js";
