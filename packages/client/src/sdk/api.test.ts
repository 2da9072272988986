import { describe, expectTypeOf, it } from "vitest";
import type * as admin from "./admin-collections.js";
import type { ResponseBody } from "./api.js";
import type * as entitlementsAdmin from "./entitlements-admin.js";
import type * as entitlements from "./entitlements.js";
import type * as partner from "./partner.js";
import type * as sessions from "./sessions.js";
import type * as types from "./types.js";
import type * as users from "./users.js";
import type * as webhooks from "./webhooks-admin.js";
import type * as workflows from "./workflows.js";

// Checked by `npm run typecheck` (tsc reads the test files): an alias that names an operation or
// status the generated types do not have is `never`, and its line fails to compile.
describe("the SDK's shapes are the generated API types", () => {
  it("every alias names an operation and status the document has", () => {
    expectTypeOf<types.Tenant>().not.toBeNever();
    expectTypeOf<types.Tenant["status"]>().toEqualTypeOf<
      "provisioning" | "active" | "failed" | "suspended"
    >();
    expectTypeOf<types.ProvisioningStatus>().not.toBeNever();
    expectTypeOf<types.CreateTenantInput>().not.toBeNever();
    expectTypeOf<types.Session>().not.toBeNever();
    expectTypeOf<types.LoginInput>().not.toBeNever();
    expectTypeOf<types.TransitionRequestStatus>().not.toBeNever();
    expectTypeOf<admin.Partner>().not.toBeNever();
    expectTypeOf<admin.ProfileInput>().not.toBeNever();
    expectTypeOf<admin.ProfileRevision>().not.toBeNever();
    expectTypeOf<admin.Connection>().not.toBeNever();
    expectTypeOf<admin.ConnectionChanges>().not.toBeNever();
    expectTypeOf<admin.ApiKey>().not.toBeNever();
    expectTypeOf<admin.CreatedApiKey>().not.toBeNever();
    expectTypeOf<admin.AuditEvent>().not.toBeNever();
    expectTypeOf<admin.AuditVerification>().not.toBeNever();
    expectTypeOf<admin.Upload>().not.toBeNever();
    expectTypeOf<admin.UploadFinding>().not.toBeNever();
    expectTypeOf<admin.UploadOutbound>().not.toBeNever();
    expectTypeOf<admin.SegmentTree>().not.toBeNever();
    expectTypeOf<admin.Delivery>().not.toBeNever();
    expectTypeOf<admin.Entity>().not.toBeNever();
    expectTypeOf<admin.AccessToken>().not.toBeNever();
    expectTypeOf<admin.CreatedAccessToken>().not.toBeNever();
    expectTypeOf<users.User>().not.toBeNever();
    expectTypeOf<users.UserRole>().toEqualTypeOf<"owner" | "admin" | "viewer">();
    expectTypeOf<users.OneTimeToken>().not.toBeNever();
    expectTypeOf<users.InvitedUser>().not.toBeNever();
    expectTypeOf<users.InviteUserInput>().not.toBeNever();
    expectTypeOf<users.UpdateUserInput>().not.toBeNever();
    expectTypeOf<users.SsoSettings>().not.toBeNever();
    expectTypeOf<users.SsoSettingsInput>().not.toBeNever();
    expectTypeOf<sessions.UserSession>().not.toBeNever();
    expectTypeOf<webhooks.WebhookSubscription>().not.toBeNever();
    expectTypeOf<webhooks.OperatorEventType>().not.toBeNever();
    expectTypeOf<webhooks.CreatedWebhookSubscription>().not.toBeNever();
    expectTypeOf<webhooks.WebhookAttempt>().not.toBeNever();
    expectTypeOf<webhooks.WebhookRecovery>().not.toBeNever();
    expectTypeOf<webhooks.RotatedWebhookSecret>().not.toBeNever();
    expectTypeOf<entitlementsAdmin.App>().not.toBeNever();
    expectTypeOf<entitlementsAdmin.SetEntitlementInput>().not.toBeNever();
    expectTypeOf<entitlementsAdmin.ServiceBinding>().not.toBeNever();
    expectTypeOf<entitlementsAdmin.CreatedServiceBinding>().not.toBeNever();
    expectTypeOf<entitlementsAdmin.RotatedCredential>().not.toBeNever();
    expectTypeOf<entitlementsAdmin.EntitlementHistoryPage>().not.toBeNever();
    expectTypeOf<entitlements.Introspection>().not.toBeNever();
    expectTypeOf<entitlements.SnapshotPage>().not.toBeNever();
    expectTypeOf<entitlements.ChangesPage>().not.toBeNever();
    expectTypeOf<entitlements.GrantResult>().not.toBeNever();
    expectTypeOf<partner.MailboxItem>().not.toBeNever();
    expectTypeOf<partner.Claim>().not.toBeNever();
    expectTypeOf<partner.Receipt>().not.toBeNever();
    expectTypeOf<partner.UploadResult>().not.toBeNever();
    expectTypeOf<workflows.TransitionRequestInput>().not.toBeNever();
    // And the guard itself: a status the operation does not answer with is never.
    expectTypeOf<ResponseBody<"getTenant", 404>>().toBeNever();
  });
});
