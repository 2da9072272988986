// Generated from /openapi.json by `npm run generate:client-types` (openapi-typescript): do not edit.
// test/e2e/client-types.test.ts fails when it is stale.

export interface paths {
  "/healthz": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The process is up
     * @description Answers 200 while the process runs, whatever the database does; for liveness probes.
     */
    get: operations["checkLiveness"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/readyz": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The database answers and every migration is applied
     * @description 200 when the database answers and every migration is applied, else 503 ERR_UNAVAILABLE with Retry-After; for readiness probes and load balancers.
     */
    get: operations["checkReadiness"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/meta/discovery": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * API major, server version, build metadata and public capabilities
     * @description Public. Clients check `apiMajor` before anything else and read optional features from `capabilities`; `entitlements` names the grant issuer and its JWKS when that module runs.
     */
    get: operations["getDiscovery"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/meta/entrypoints": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Public authentication and onboarding entrypoints
     * @description Public. How to authenticate: the `auth` entrypoints with their actions (log in, log out).
     */
    get: operations["listPublicEntrypoints"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/profile/entrypoints": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Entrypoints and actions this session may use
     * @description What the calling session may use, by its tenant type and scopes: each entrypoint with its href and actions (method, href, required headers, accepted status). A missing entry or action is a definitive denial; do not infer other paths. Treat unknown kinds as unusable.
     */
    get: operations["listEntrypoints"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/profile/entrypoints/{entryId}/meta": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * JSON Schemas of a crud entrypoint's payloads (its metaHref)
     * @description The JSON Schemas of a `crud` entrypoint's create and update payloads and of one record. An entrypoint the session cannot see, or one of another kind, is 404.
     */
    get: operations["getEntrypointMeta"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/auth/sessions": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List the calling user's open sessions
     * @description With a user session only (an access token is 403). The user's sessions that are not ended, expired or idle, oldest first, paged with `limit` and `cursor`; `current` marks the calling one, `method` says how each was opened. Never a token.
     */
    get: operations["listSessions"];
    put?: never;
    /**
     * Log in with tenant slug, e-mail and password
     * @description Any wrong part is the same 401. Ten failed logins for one account from one client address (then one per 30 s), or a hundred from one address (then one per second), are answered 429 ERR_RATE_LIMITED with Retry-After, before the password is checked; other addresses are not affected. Past HANSE_SIGN_IN_ACCOUNT_FAILURES failures of one account from all addresses, its password checks are spaced one per second: slower, but a correct password is still accepted.
     */
    post: operations["createSession"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/auth/invitations": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Accept an invitation with a new password, for a session
     * @description The invitation's token (from inviteUser) and the user's new password: at least 15 and at most 1024 characters, else 400 at /password. The user becomes active, the invitation is used up, and the answer is a session as from createSession. An unknown, used or expired invitation, or one of a user deactivated since, is 401.
     */
    post: operations["acceptInvitation"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/auth/password": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Change the calling user's password
     * @description With a user session only (an access token is 403). The current password must be right, else 400 at /currentPassword (counted like a failed sign-in: too many are 429 ERR_RATE_LIMITED); the new one has at least 15 and at most 1024 characters and is not one of the most common passwords, else 400 at /newPassword. The user's other sessions end; the calling one stays.
     */
    post: operations["changePassword"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/auth/password-resets": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Set a new password with a password reset
     * @description The reset's token (from issuePasswordReset) and the user's new password: at least 15 and at most 1024 characters, not one of the most common passwords, else 400 at /password (the token stays usable). Every session of the user ends; the reset is used up. An unknown, used or expired reset, or one of a user no longer active, is 401.
     */
    post: operations["usePasswordReset"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/auth/sessions/current": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post?: never;
    /**
     * Log out: revoke the calling session
     * @description Revokes the session whose token authenticated the request; its token is refused from then on. Called with an access token, nothing is revoked (revoke tokens with revokeAccessToken).
     */
    delete: operations["deleteCurrentSession"];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/auth/sessions/{id}": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post?: never;
    /**
     * End one of the calling user's sessions
     * @description With a user session only (an access token is 403). The session's token is refused from then on (the calling session may end itself this way too). Another user's session, or an unknown or already ended one, is 404 and nothing ends.
     */
    delete: operations["deleteSession"];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/profile/whoami": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The calling principal, its tenant and scopes
     * @description Who the bearer token belongs to: a user session or an access token, its tenant and scopes.
     */
    get: operations["getWhoami"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/admin/access-tokens": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List access tokens of the tenant
     * @description Oldest first, paged with `limit` and the opaque `cursor` of the previous page's `meta.nextCursor`.
     */
    get: operations["listAccessTokens"];
    put?: never;
    /**
     * Create an access token (scopes ⊆ the caller's)
     * @description A token for a program, with at most the caller's scopes (else 403) and an optional expiry. The token itself is in this answer only; it is stored as a hash.
     */
    post: operations["createAccessToken"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/admin/access-tokens/{id}": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Read an access token
     * @description One access token of the tenant, without its secret.
     */
    get: operations["getAccessToken"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/admin/access-tokens/{id}/revoke": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Revoke an access token (idempotent)
     * @description The token is refused from now on; revoking a revoked token answers it unchanged.
     */
    post: operations["revokeAccessToken"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/admin/users": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List the tenant's users (users:read)
     * @description Oldest first. Paged with `limit` (1–100, default 50) and the opaque `cursor` of the previous page's `meta.nextCursor`; `order=desc` lists newest first.
     */
    get: operations["listUsers"];
    put?: never;
    /**
     * Invite a user (users:write)
     * @description Creates the user with status `invited` and an invitation whose token is in this answer only (stored as a hash), valid HANSE_INVITATION_TTL_SECONDS (default 3 days). The invited person accepts it with a password at POST /api/v1/auth/invitations. An e-mail address already used in the tenant (in any case) is 409.
     */
    post: operations["inviteUser"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/admin/users/{id}": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Read a user (users:read)
     * @description One user of the tenant; an unknown id, or another tenant's, is 404.
     */
    get: operations["getUser"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    /**
     * Change a user's name, role or status (users:write)
     * @description At least one field. A role change applies from the user's next request on. `deactivated` ends the user's sessions at once and refuses its sign-ins and its invitation; `active` allows sign-in again (ended sessions stay ended; a user that never accepted its invitation cannot be made active: 409). A change that would leave the tenant without an active owner is 409.
     */
    patch: operations["updateUser"];
    trace?: never;
  };
  "/api/v1/admin/users/{id}/invitation": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Invite an invited user again (users:write)
     * @description For a user that has not accepted its invitation yet (it expired, or the token was lost): a new invitation whose token is in this answer only (stored as a hash), valid HANSE_INVITATION_TTL_SECONDS. The user's earlier invitation tokens stop working. Audited as `user.invited` (data.reissued). An unknown id, or another tenant's, is 404; a user that is active or deactivated is 409.
     */
    post: operations["reissueInvitation"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/admin/users/{id}/password-reset": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Issue a password reset for a user (users:write)
     * @description A one-use token, in this answer only (stored as a hash), valid HANSE_PASSWORD_RESET_TTL_SECONDS (default 1 hour). Hand it to the user, who sets a new password with it at POST /api/v1/auth/password-resets; that ends every session of the user. An unknown id, or another tenant's, is 404; an invited or deactivated user is 409.
     */
    post: operations["issuePasswordReset"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/admin/sso": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The tenant's single sign-on settings (users:read)
     * @description Never the client secret. A tenant without single sign-on is 404.
     */
    get: operations["getSsoSettings"];
    /**
     * Set up or change the tenant's single sign-on (users:write)
     * @description An OpenID Connect issuer and the client registered there for Hanse, whose redirect URI is <HANSE_PUBLIC_URL>/api/v1/auth/sso/callback. Hanse reads <issuer>/.well-known/openid-configuration now: an issuer that is not HTTPS on a public address, does not answer, or answers with a document naming another issuer or lacking the authorization, token or key endpoints is 400 at /issuer. The client secret is sealed at rest and never returned. `autoCreate` creates users on their first sign-in when their verified e-mail address is of one of the domains; null: only existing users sign in. Replaces any earlier setting.
     */
    put: operations["setSsoSettings"];
    post?: never;
    /**
     * Turn the tenant's single sign-on off (users:write)
     * @description Sign-ins under way are refused from then on; sessions already open stay. A tenant without single sign-on is 404.
     */
    delete: operations["deleteSsoSettings"];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/auth/sso/{tenantSlug}": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Sign in with the tenant's identity provider
     * @description For a browser: 302 to the issuer's authorization endpoint (authorization code flow with PKCE: response_type=code, client_id, redirect_uri, scope `openid email profile`, state, nonce, code_challenge, code_challenge_method=S256). The sign-in must be finished within 10 minutes. `returnTo` is a path on Hanse to land on afterwards (default /console/); anything else is 400. A tenant without single sign-on is 404.
     */
    get: operations["startSsoSignIn"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/auth/sso/callback": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Where the identity provider sends the browser back
     * @description The issuer's redirect with `code` and `state`. On success 303 to the sign-in's returnTo with the console's session cookie set (a session with method `sso`). The state is used once and expires after 10 minutes; the code is redeemed with the PKCE verifier and the client secret; the ID token's signature (the issuer's keys), iss, aud, exp and nonce are checked; email_verified must be true and the e-mail address an active user's of the tenant, or of an autoCreate domain (the user is created with its role). Anything else is 401 and nothing is created.
     */
    get: operations["finishSsoSignIn"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/system/tenants": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List tenants (system tenant, tenants:list)
     * @description Every tenant, oldest first, paged with `limit` and `cursor`. Only the system tenant's callers: any other tenant gets 404.
     */
    get: operations["listTenants"];
    put?: never;
    /**
     * Start provisioning a customer tenant (system tenant, tenants:create)
     * @description Requires `Idempotency-Key` (1–255 visible ASCII characters). Answers 202 with `Location` (the new tenant) and `Retry-After`; the same key and body replay the first answer, another body is 409 ERR_IDEMPOTENCY_MISMATCH.
     */
    post: operations["createTenant"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/system/tenants/{tenantId}": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Read a tenant (system tenant, tenants:read)
     * @description One tenant with its status. Only the system tenant's callers: any other tenant gets 404.
     */
    get: operations["getTenant"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/system/tenants/{tenantId}/suspend": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Suspend a tenant (system tenant, tenants:write)
     * @description rules/contract §7, offboarding: from the answer on, the tenant's sessions, access tokens, partner API keys and service credentials are refused as if unknown (401 with the code of their area), its exchange deliveries and webhooks wait, nothing is deleted. Suspending a suspended tenant answers it unchanged; the system tenant, or a tenant that is not active, is 409 ERR_CONFLICT.
     */
    post: operations["suspendTenant"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/system/tenants/{tenantId}/resume": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Resume a suspended tenant (system tenant, tenants:write)
     * @description Brings a suspended tenant back: the same credentials work again and its waiting jobs run. Resuming an active tenant answers it unchanged; a tenant neither active nor suspended is 409.
     */
    post: operations["resumeTenant"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/system/tenants/{tenantId}/provisioning": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Provisioning status (tenants:read or system_diagnostics:read)
     * @description The state of the tenant's provisioning steps; `terminal` once it succeeded or failed (then `error` says why). Carries `Retry-After` while the state is not terminal.
     */
    get: operations["getTenantProvisioning"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/admin/workflow-definitions": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List the tenant's workflow definitions (admin:read)
     * @description Paged with `limit` (1–100, default 50) and the opaque `cursor` of the previous page's `meta.nextCursor`; `order=desc` lists newest first.
     */
    get: operations["listWorkflowDefinitions"];
    put?: never;
    /**
     * Add a workflow for a new entity kind (admin:write)
     * @description The states, the initial state and the named transitions (from one of several states to one) of an entity kind. The initial state and every transition's states must be among `states` (else 400). Definitions are not changed once created; a kind already defined is 409 ERR_CONFLICT.
     */
    post: operations["createWorkflowDefinition"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/admin/workflow-definitions/{kind}": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Read the workflow of one entity kind (admin:read)
     * @description The definition of one entity kind; an unknown kind is 404.
     */
    get: operations["getWorkflowDefinition"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/admin/entities": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List entities, optionally of one kind (admin:read)
     * @description Only entities of `kind` when given. Paged with `limit` (1–100, default 50) and the opaque `cursor` of the previous page's `meta.nextCursor`; `order=desc` lists newest first.
     */
    get: operations["listEntities"];
    put?: never;
    /**
     * Create an entity in its workflow's initial state, version 1 (admin:write)
     * @description The kind must have a workflow definition (else 400). States change only through workflow transition requests (requestTransition).
     */
    post: operations["createEntity"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/admin/entities/{id}": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Read an entity (admin:read)
     * @description One entity with its state, version and attributes; an unknown id is 404.
     */
    get: operations["getEntity"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/admin/transition-requests": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List transition requests with their status and outcome (admin:read)
     * @description The tenant's workflow transition requests in creation order, each as its status document (getTransitionRequest). `entityId` narrows to one entity's requests, `status` to one of `pending`, `processing`, `succeeded`, `failed` (another value is 400). A cursor is valid only with the filter it was issued for (else 400). Paged with `limit` (1–100, default 50) and the opaque `cursor` of the previous page's `meta.nextCursor`; `order=desc` lists newest first.
     */
    get: operations["listTransitionRequests"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/workflows/transition-requests": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Request a workflow transition (asynchronous, idempotent; workflows:transition)
     * @description Headers `X-Tenant-ID` (the credential's tenant) and `X-Idempotency-Key` (1–255 characters of any kind, sent as UTF-8) are required. Answers 202 with `requestId`, `status` and `statusUrl`, plus `Location` and `Retry-After`. An exact retry returns the first answer byte for byte (with `Idempotent-Replayed: true`); the key with another entity, entityId, transition or payload is 409 ERR_IDEMPOTENCY_MISMATCH. The body is limited to 1 MiB (413, nothing created). The business outcome is read from `statusUrl`.
     */
    post: operations["requestTransition"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/workflows/transition-requests/{requestId}": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Status of a transition request (workflows:read)
     * @description `X-Tenant-ID` is optional and must name the credential's tenant when sent. Carries `Retry-After` while the status is `pending` or `processing`. Business failures are outcomes (`error.code`: ERR_WORKFLOW_ENTITY_NOT_FOUND, ERR_WORKFLOW_TRANSITION_NOT_ALLOWED, ERR_WORKFLOW_CONFLICT, ERR_WORKFLOW_ADAPTER_REJECTED, ERR_WORKFLOW_ADAPTER_UNAVAILABLE), not HTTP errors.
     */
    get: operations["getTransitionRequest"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/admin/lifecycle-adapters": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List the tenant's PIM lifecycle adapters (admin:read)
     * @description Paged with `limit` (1–100, default 50) and the opaque `cursor` of the previous page's `meta.nextCursor`; `order=desc` lists newest first.
     */
    get: operations["listLifecycleAdapters"];
    put?: never;
    /**
     * Register the PIM lifecycle adapter of an entity kind (admin:write)
     * @description The processor POSTs every transition of this kind to the HTTPS `url` before applying it, signed like Standard Webhooks (`webhook-id` = requestId, `webhook-timestamp`, `webhook-signature`) with the returned `secret`; the body is at most 64 KiB. 2xx lets the transition proceed, 4xx vetoes it (ERR_WORKFLOW_ADAPTER_REJECTED), 5xx or a time-out is retried with backoff up to `maxAttempts` (then ERR_WORKFLOW_ADAPTER_UNAVAILABLE). Private and loopback targets are refused. One adapter per kind (409 ERR_CONFLICT).
     */
    post: operations["createLifecycleAdapter"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/admin/lifecycle-adapters/{id}": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Read a lifecycle adapter (admin:read); the secret is never shown again
     * @description One adapter of the tenant, without its signing secret.
     */
    get: operations["getLifecycleAdapter"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/admin/apps": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List the tenant's apps (admin:read)
     * @description Paged with `limit` (1–100, default 50) and the opaque `cursor` of the previous page's `meta.nextCursor`; `order=desc` lists newest first.
     */
    get: operations["listApps"];
    put?: never;
    /**
     * Create an app with its capabilities (admin:write)
     * @description App ids are unique per tenant: an id already used is 409 ERR_CONFLICT.
     */
    post: operations["createApp"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/admin/apps/{id}": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Read an app (admin:read)
     * @description One app with its capabilities; an unknown id is 404.
     */
    get: operations["getApp"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/admin/apps/{appId}/entitlements": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List an app's entitlements in actor order (admin:read)
     * @description In actor id order. Paged with `limit` (1–100, default 50) and the opaque `cursor` of the previous page's `meta.nextCursor`; `order=desc` lists newest first.
     */
    get: operations["listEntitlements"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/admin/apps/{appId}/entitlements/{actorId}": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Read an actor's entitlement (admin:read)
     * @description One actor's entitlement of the app (its capabilities and validity).
     */
    get: operations["getEntitlement"];
    /**
     * Set an actor's entitlement (admin:write)
     * @description Replaces the actor's entitlement and records it as the next change of the app's stream (its `sequence`). `capabilities` must be the app's; `validFrom` defaults to the earlier value or now; `validUntil` (exclusive) must be later than `validFrom`, null or absent for no end.
     */
    put: operations["setEntitlement"];
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/admin/apps/{appId}/entitlements/{actorId}/changes": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List an actor's entitlement changes, newest first (admin:read)
     * @description The actor's changes from the app's change feed, newest first: each with its `sequence`, the entitlement after the change and when it occurred (who made it: the audit event `entitlement.changed`). Changes are kept HANSE_FEED_RETENTION_SECONDS like the feed's; `meta.prunedThrough` is the highest sequence no longer kept. An actor without changes has an empty list; an unknown app is 404. Paged with `limit` (1–100, default 50) and the opaque `cursor` of the previous page's `meta.nextCursor`.
     */
    get: operations["listEntitlementHistory"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/admin/service-bindings": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List service bindings (admin:read)
     * @description Paged with `limit` (1–100, default 50) and the opaque `cursor` of the previous page's `meta.nextCursor`; `order=desc` lists newest first.
     */
    get: operations["listServiceBindings"];
    put?: never;
    /**
     * Create a service binding and issue its credential (admin:write)
     * @description The `secret` is shown only in this response; the binding's app must exist.
     */
    post: operations["createServiceBinding"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/admin/service-bindings/{id}": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Read a service binding (admin:read)
     * @description One binding of the tenant, without its credential's secret.
     */
    get: operations["getServiceBinding"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/admin/service-bindings/{id}/rotate": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Rotate a service binding's credential (admin:write)
     * @description Issues a new credential id and secret (shown only here); the previous ones stay valid for HANSE_CREDENTIAL_OVERLAP_SECONDS.
     */
    post: operations["rotateServiceBindingCredential"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/admin/service-bindings/{id}/revoke": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Revoke a service binding (admin:write)
     * @description rules/contract §7, offboarding: from the answer on every credential of the binding, the previous one of a rotation's overlap included, is refused (401 ERR_SERVICE_AUTH_INVALID_CREDENTIAL) in every process, and its webhook subscriptions stop. Grants already issued stay valid until they expire. Revoking a revoked binding answers it unchanged.
     */
    post: operations["revokeServiceBinding"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/public/v1/app-entitlements/service/introspect/{actorId}": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The current entitlement decision for one actor of the binding's app
     * @description `entitled` is true only when the status is active, now is within [validFrom, validUntil) and the capabilities include the binding's required ones. An unknown actor is 200 with `entitled: false`.
     */
    get: operations["introspectEntitlement"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/public/v1/app-entitlements/service/snapshot": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * One page of the binding's app's entitlements as of a sequence
     * @description The first page yields `asOfSequence`; every later page sends `cursor` and the same `asOfSequence` and shows the state as of it. 410 ERR_APP_ENTITLEMENT_CURSOR_EXPIRED when that state can no longer be served.
     */
    get: operations["getEntitlementSnapshot"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/public/v1/app-entitlements/service/changes": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Changes of the binding's app after a sequence, in ascending order
     * @description 410 ERR_APP_ENTITLEMENT_CURSOR_EXPIRED exactly when a change after `afterSequence` has been pruned: discard the local projection and start with a new snapshot.
     */
    get: operations["listEntitlementChanges"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/public/v1/app-entitlements/service/grants/{actorId}": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Issue a short-lived Ed25519 grant for an entitled actor
     * @description A compact JWS (`typ: entitlement-grant+jwt`) bound to the calling binding (`aud`, `binding`). An actor that is not entitled, or lacks the binding's required capabilities, gets 403 ERR_APP_ENTITLEMENT_NOT_ENTITLED and no grant.
     */
    post: operations["issueGrant"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/public/v1/app-entitlements/jwks": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Public Ed25519 keys that verify grants (JWKS)
     * @description Current keys, keys published ahead of signing, and retired keys whose grants may still be valid.
     */
    get: operations["getGrantJwks"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/system/tenants/{tenantId}/signing-keys": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * A tenant's grant signing keys and their states (system tenant, admin:read)
     * @description The keys that sign a tenant's grants: the active one, the next one and withdrawn or retired ones, with their states and times. Only the system tenant's callers: any other tenant gets 404.
     */
    get: operations["listSigningKeys"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/system/tenants/{tenantId}/signing-keys/rotate": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Rotate a tenant's signing key now (system tenant, admin:write)
     * @description The key published ahead signs once it has been in the JWKS for its max-age (300 s; at once when it has been); the current key retires then and leaves the JWKS when its grants expired.
     */
    post: operations["rotateSigningKey"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/system/tenants/{tenantId}/signing-keys/{kid}/withdraw": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Withdraw a compromised signing key at once (system tenant, admin:write)
     * @description The key leaves the JWKS and signs no more; when it was signing, the key published ahead signs from now on.
     */
    post: operations["withdrawSigningKey"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/admin/webhook-subscriptions": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List webhook subscriptions (admin:read)
     * @description Paged with `limit` (1–100, default 50) and the opaque `cursor` of the previous page's `meta.nextCursor`; `order=desc` lists newest first.
     */
    get: operations["listWebhookSubscriptions"];
    put?: never;
    /**
     * Subscribe an HTTPS URL to a binding's entitlement changes or to operator events (admin:write)
     * @description With `bindingId`: the binding's app's entitlement changes (rules/contract §5). Without it: the tenant's operator subscription to `eventTypes` (rules/contract §8: `exchange.upload.rejected`, `exchange.upload.failed`, `exchange.delivery.overdue`, `exchange.delivery.failed`, `workflows.request.failed`), delivered as `{eventId, type, tenantId, occurredAt, subject: {uploadId?, deliveryAttemptId?, connectionId?, requestId?}}`, ids only, never payload bytes. An unknown, empty or repeated event type, `eventTypes` missing without `bindingId` or given with it is 400 ERR_VALIDATION at `/eventTypes[/<i>]`, nothing created. HTTPS only, no credentials in the URL, and the host must resolve to public addresses (checked again at every delivery). The Standard Webhooks `secret` is shown only in this response.
     */
    post: operations["createWebhookSubscription"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/admin/webhook-subscriptions/{id}": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Read a webhook subscription (admin:read)
     * @description One subscription of the tenant, without its signing secret.
     */
    get: operations["getWebhookSubscription"];
    put?: never;
    post?: never;
    /**
     * Delete a webhook subscription (admin:write)
     * @description rules/contract §7, offboarding: no delivery of the subscription starts after the answer (its pending deliveries are cancelled; one already being sent may finish). It is 404 from then on.
     */
    delete: operations["deleteWebhookSubscription"];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/admin/webhook-subscriptions/{id}/attempts": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * A subscription's delivery attempts, newest first (admin:read)
     * @description Every attempt to deliver the subscription's changes, with its outcome. Paged with `limit` (1–100, default 50) and the opaque `cursor` of the previous page's `meta.nextCursor`.
     */
    get: operations["listWebhookAttempts"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/admin/webhook-subscriptions/{id}/enable": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Enable a subscription again (admin:write)
     * @description Deliveries resume from where they stopped.
     */
    post: operations["enableWebhookSubscription"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/admin/webhook-subscriptions/{id}/disable": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Disable a subscription; its pending deliveries are dropped (admin:write)
     * @description No deliveries until enabled again; pending ones are dropped (recover re-sends from a sequence).
     */
    post: operations["disableWebhookSubscription"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/admin/webhook-subscriptions/{id}/recover": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Re-send every change from a sequence on (admin:write)
     * @description Queues one delivery per change of the app from `fromSequence` on that the feed still holds. An operator subscription has no change feed: 409 ERR_CONFLICT.
     */
    post: operations["recoverWebhookSubscription"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/admin/webhook-subscriptions/{id}/rotate-secret": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Rotate a subscription's signing secret (admin:write)
     * @description Deliveries carry a signature with each secret until the old one expires (HANSE_CREDENTIAL_OVERLAP_SECONDS): `webhook-signature: v1,<new> v1,<old>`.
     */
    post: operations["rotateWebhookSecret"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/admin/partners": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List trading partners (admin:read)
     * @description Paged with `limit` (1–100, default 50) and the opaque `cursor` of the previous page's `meta.nextCursor`; `order=desc` lists newest first.
     */
    get: operations["listPartners"];
    put?: never;
    /**
     * Create a trading partner (admin:write)
     * @description A partner is a name; its connections and API keys refer to it.
     */
    post: operations["createPartner"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/admin/partners/{id}": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Read a trading partner (admin:read)
     * @description One partner of the tenant; an unknown id is 404.
     */
    get: operations["getPartner"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    /**
     * Rename a trading partner (admin:write)
     * @description Replaces the partner's name.
     */
    patch: operations["updatePartner"];
    trace?: never;
  };
  "/api/v1/admin/connections": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List partner connections, oldest first, optionally one partner's (admin:read)
     * @description In creation order. `partnerId` narrows the list to one partner's connections; an unknown partner has none (an empty page), an id that is no UUID is 400; a cursor is valid only with the `partnerId` of the page that gave it (else 400). Paged with `limit` (1–100, default 50) and the opaque `cursor` of the previous page's `meta.nextCursor`; `order=desc` lists newest first.
     */
    get: operations["listConnections"];
    put?: never;
    /**
     * Create a connection to a partner with its first profile (admin:write)
     * @description A connection is where one partner uploads interchanges and collects replies, under an EDIFACT profile (directory, syntax, identifications, which replies to send). The profile becomes revision 1, active; the partner must exist (else 404).
     */
    post: operations["createConnection"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/admin/connections/{id}": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Read a connection with its active profile (admin:read)
     * @description One connection of the tenant; an unknown id is 404.
     */
    get: operations["getConnection"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    /**
     * Rename, suspend or reactivate a connection, or change its collection deadline (admin:write)
     * @description Changes the name, the status or the collection deadline (any of them). A suspended connection refuses uploads and mailbox reads until it is active again. A new collection deadline applies to the deliveries not yet overdue.
     */
    patch: operations["updateConnection"];
    trace?: never;
  };
  "/api/v1/admin/connections/{id}/profile-revisions": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List a connection's profile revisions (admin:read)
     * @description Every revision of the connection's profile, the active one marked. Paged with `limit` (1–100, default 50) and the opaque `cursor` of the previous page's `meta.nextCursor`; `order=desc` lists newest first.
     */
    get: operations["listProfileRevisions"];
    put?: never;
    /**
     * Add a profile revision to a connection (admin:write)
     * @description The next revision number, not active until activated; uploads keep using the active revision.
     */
    post: operations["createProfileRevision"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/admin/connections/{id}/profile-revisions/{revision}": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Read one profile revision (admin:read)
     * @description An unknown connection or revision is 404.
     */
    get: operations["getProfileRevision"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/admin/connections/{id}/profile-revisions/{revision}/activate": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Make a profile revision the active one (admin:write)
     * @description Uploads accepted from now on are processed under this revision; activating the active one changes nothing.
     */
    post: operations["activateProfileRevision"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/admin/api-keys": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List partner API keys, oldest first, optionally one partner's (admin:read)
     * @description In creation order, revoked keys included. `partnerId` narrows the list to one partner's keys; an unknown partner has none (an empty page), an id that is no UUID is 400; a cursor is valid only with the `partnerId` of the page that gave it (else 400). Paged with `limit` (1–100, default 50) and the opaque `cursor` of the previous page's `meta.nextCursor`; `order=desc` lists newest first.
     */
    get: operations["listApiKeys"];
    put?: never;
    /**
     * Issue a partner API key (admin:write)
     * @description A key for one partner with partner scopes, optionally limited to some of its connections. The token `<apiKeyId>:<secret>` is in this answer only.
     */
    post: operations["createApiKey"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/admin/api-keys/{id}": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Read a partner API key (admin:read)
     * @description One key, without its secret; an unknown id is 404.
     */
    get: operations["getApiKey"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/admin/api-keys/{id}/revoke": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Revoke a partner API key (admin:write, idempotent)
     * @description The key is refused from now on; revoking a revoked key answers it unchanged.
     */
    post: operations["revokeApiKey"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/admin/audit-events/verification": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Verify the audit trail's hash chain (admin:read)
     * @description Checks every sealed record of the tenant against its seal and its predecessor, and the chain's end against its last seal. `verified` is false when a record was changed, removed or reordered; `problem` names the first such record. Records are sealed within `HANSE_AUDIT_SEAL_SECONDS` (15 s) plus a job poll of being written; `checkedThrough`: every record committed before it was checked. Reads the whole chain, a page at a time.
     */
    get: operations["verifyAuditTrail"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/admin/audit-events/export": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Export the audit trail as NDJSON (admin:read)
     * @description The records of `[occurredFrom, occurredBefore)` (both optional), one JSON object per line, in the chain's order: the sealed ones as one unbroken stretch of the chain, each with its `seal`, then those not sealed yet (`seal: null`). Streamed a page at a time. docs/operators.md ("Audit") shows how to check an export without Hanse.
     */
    get: operations["exportAuditEvents"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/admin/audit-events": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List audit events (admin:read)
     * @description Every administrative act, sign-in and mailbox read of the tenant (rules/contract §7), oldest first (`order=desc`: newest first). Narrowed by `type` (one, or a prefix ending in `.` such as `user.`), `principalId` (who acted), `targetId` (what was changed) and `occurredFrom` (inclusive) … `occurredBefore` (exclusive); a cursor is valid only with the filters and order of the page that gave it (else 400). Paged with `limit` (1–100, default 50) and the opaque `cursor` of the previous page's `meta.nextCursor`; `order=desc` lists newest first.
     */
    get: operations["listAuditEvents"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/admin/audit-events/{id}": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Read an audit event (admin:read)
     * @description One audit event; an unknown id is 404.
     */
    get: operations["getAuditEvent"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/admin/exchange-uploads": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List uploads, oldest first, optionally filtered (admin:read)
     * @description In creation order. `connectionId`, `status` (one, or several separated by commas) and the time range `from` (inclusive) … `to` (exclusive) on `createdAt` narrow the list; a cursor is valid only with the filters of the page that gave it (else 400). Each upload with `outboundCounts` (messages produced per type) and `findingCount`; the findings themselves are on the upload. Paged with `limit` (1–100, default 50) and the opaque `cursor` of the previous page's `meta.nextCursor`; `order=desc` lists newest first.
     */
    get: operations["listUploads"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/admin/exchange-uploads/{id}": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Read an upload with its findings and outbound messages (admin:read)
     * @description One upload: its interchange, status and profile revision; `findings` says why it was rejected (interchange- and message-level syntax findings with their ISO 9735 codes, application findings with the APERAK's error code, each with its segment position); `outbound` lists the messages it produced in mailbox order, each with the UNH reference of the inbound message it answers. An unknown id is 404.
     */
    get: operations["getUpload"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/admin/exchange-uploads/{id}/content": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Read the bytes of an upload (admin:read, audited)
     * @description The interchange exactly as the partner uploaded it. Each read is audited as `upload.content.read` with its byte count; the bytes are never logged. An unknown id is 404.
     */
    get: operations["getUploadContent"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/admin/exchange-uploads/{id}/segments": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Read an upload as a segment tree with its findings (admin:read, audited)
     * @description Every segment with its position, depth, segment group and text, walked against the directory of the upload's profile, with the upload's findings on their segments (`hanse edi inspect` as JSON). Audited as `upload.content.read` (data `view: segments`). An unknown id is 404.
     */
    get: operations["getUploadSegments"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/admin/exchange-deliveries": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List outbound deliveries, oldest first, optionally filtered (admin:read)
     * @description In creation order. `connectionId`, `status` (one, or several separated by commas) and the time range `from` (inclusive) … `to` (exclusive) on `createdAt` narrow the list; a cursor is valid only with the filters of the page that gave it (else 400). `uploadId`, `messageType`, `partnerId` and `overdue=true` narrow it to what one upload produced, to one message type, to one partner's connections or to the overdue deliveries. Paged with `limit` (1–100, default 50) and the opaque `cursor` of the previous page's `meta.nextCursor`; `order=desc` lists newest first.
     */
    get: operations["listDeliveries"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/admin/exchange-deliveries/{id}": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Read an outbound delivery (admin:read)
     * @description One mailbox delivery: its message, status, attempts and receipt; an unknown id is 404.
     */
    get: operations["getDelivery"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/admin/exchange-deliveries/{id}/content": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Read the bytes of an outbound delivery (admin:read, audited)
     * @description The outbound interchange exactly as the partner downloads it. Does not claim the delivery, change its state or count as the partner's read. Audited as `delivery.content.read` with its byte count; the bytes are never logged. An unknown id is 404.
     */
    get: operations["getDeliveryContent"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/admin/exchange-deliveries/{id}/segments": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Read an outbound delivery as a segment tree (admin:read, audited)
     * @description Every segment with its position, depth, segment group and text, each message walked against the directory its UNH names (CONTRL against its service message). Audited as `delivery.content.read` (data `view: segments`). An unknown id is 404.
     */
    get: operations["getDeliverySegments"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/admin/exchange-deliveries/{id}/requeue": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Put a failed delivery back into the mailbox (admin:write)
     * @description A delivery that failed (its attempts used up) becomes due again with fresh attempts; one in another state is 409.
     */
    post: operations["requeueDelivery"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/admin/exchange-deliveries/{id}/resend": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Re-send a delivery a partner lost, as a new mailbox item (admin:write)
     * @description A new delivery at the end of the connection's mailbox: a new `deliveryAttemptId`, status `ready` with a fresh attempt budget, the same payload (the same stored bytes, not a copy), interchange, message type and reference, upload and inbound interchange, and `resentFrom` naming the original. Allowed whatever the original's status (an acknowledged delivery included), which it leaves unchanged. Audited as `delivery.resent`. An unknown id is 404.
     */
    post: operations["resendDelivery"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/b2b-exchange/partner/connections/{connectionID}/inbox": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Upload exactly one EDIFACT interchange (≤ 16 MiB)
     * @description Body: the interchange, unchanged bytes, `Content-Type: application/edifact` or `application/octet-stream`. `Idempotency-Key` (≤ 200 of `[A-Za-z0-9._:-]`) is required and bound to (tenant, connection): 202 first, 200 with `replay: true` and `Idempotent-Replayed: true` for the same bytes, 409 for other bytes.
     */
    post: operations["createUpload"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/b2b-exchange/partner/connections/{connectionID}/mailbox": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Due, unclaimed mailbox entries in order
     * @description The connection's replies (CONTRL, APERAK, ORDRSP) that are due and not claimed, oldest first, paged with `limit` and `cursor`. A connection the key may not use is 404.
     */
    get: operations["listMailbox"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/b2b-exchange/partner/connections/{connectionID}/mailbox/{deliveryAttemptID}/claim": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Claim one entry: a five-minute lease and a fresh claim token
     * @description Leases the entry to the caller and returns a new claim token for reading its payload and acknowledging it; an entry under another live lease is 409. An expired lease returns the entry to the mailbox.
     */
    post: operations["claimDelivery"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/b2b-exchange/partner/connections/{connectionID}/mailbox/{deliveryAttemptID}/payload": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Stream the payload under the current lease
     * @description Chunked, no Content-Length; headers `X-B2B-Payload-Size`, `X-B2B-Payload-SHA256`, `Repr-Digest`, `Cache-Control: no-store`; trailer `X-B2B-Payload-Integrity: verified|failed`. A missing claim token (`X-B2B-Claim-Token`) is 404 naming the header; a wrong or expired one is 404.
     */
    get: operations["readDeliveryPayload"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/b2b-exchange/partner/connections/{connectionID}/mailbox/{deliveryAttemptID}/acknowledge": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Acknowledge with the claim token after a verified read
     * @description Takes the entry out of the mailbox for good and returns a receipt; the same token again answers the same receipt (`replay: true`). A missing or stale claim token (`X-B2B-Claim-Token`) is 404; no verified payload read under this lease is 409.
     */
    post: operations["acknowledgeDelivery"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
}
export type webhooks = Record<string, never>;
export interface components {
  schemas: {
    /** @description RFC 9457 problem details (application/problem+json) */
    Problem: {
      /** @description `urn:hanse:error:<code>` */
      type: string;
      /** @description The status's reason phrase */
      title: string;
      /** @description The HTTP status */
      status: number;
      /** @description Stable error code; its HTTP status never changes */
      code: string;
      /** @description What went wrong, for people; never a secret or the request's payload */
      detail: string;
      /** @description As in the X-Correlation-ID response header */
      correlationId: string;
      /** @description Field errors of a validation failure (at most 20) */
      errors?: {
        /** @description JSON pointer into the request (`/query/limit`, `/name`) */
        pointer: string;
        message: string;
      }[];
    };
  };
  responses: never;
  parameters: never;
  requestBodies: never;
  headers: never;
  pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
  checkLiveness: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            /** @enum {string} */
            status?: "ok";
          };
        };
      };
    };
  };
  checkReadiness: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            /** @enum {string} */
            status?: "ready";
          };
        };
      };
    };
  };
  getDiscovery: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            apiMajor: number;
            serverVersion: string;
            build: {
              commit: string | null;
              builtAt: string | null;
            };
            capabilities: string[];
            entitlements?: {
              issuer: string;
              jwksUri: string;
            };
          };
        };
      };
    };
  };
  listPublicEntrypoints: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            entrypoints: {
              id: string;
              /** @description crud, system-resource or auth; treat unknown kinds as unusable */
              kind: string;
              href: string;
              metaHref?: string;
              actions: {
                id: string;
                method: string;
                href: string;
                requiredHeaders?: string[];
                acceptedStatus?: number;
                responseHeaders?: string[];
                statusHref?: string;
                statusRequiredAnyScopes?: string[];
              }[];
            }[];
          };
        };
      };
    };
  };
  listEntrypoints: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            entrypoints: {
              id: string;
              /** @description crud, system-resource or auth; treat unknown kinds as unusable */
              kind: string;
              href: string;
              metaHref?: string;
              actions: {
                id: string;
                method: string;
                href: string;
                requiredHeaders?: string[];
                acceptedStatus?: number;
                responseHeaders?: string[];
                statusHref?: string;
                statusRequiredAnyScopes?: string[];
              }[];
            }[];
          };
        };
      };
    };
  };
  getEntrypointMeta: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        entryId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            id: string;
            schemas: {
              /** @description JSON Schema of the create payload */
              create: unknown;
              /** @description JSON Schema of the update payload, or null */
              update: unknown;
              /** @description JSON Schema of one record */
              item: unknown;
            };
          };
        };
      };
    };
  };
  listSessions: {
    parameters: {
      query?: {
        limit?: number;
        cursor?: string;
        /** @description `asc` (oldest first, the default) or `desc` (newest first); a cursor keeps its order */
        order?: "asc" | "desc";
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            items: {
              /** Format: uuid */
              id: string;
              /**
               * Format: date-time
               * @description RFC 3339 UTC with milliseconds
               */
              createdAt: string;
              /**
               * Format: date-time
               * @description When the session was last used, recorded at most once a minute (so up to a minute behind); its creation at first
               */
              lastUsedAt: string;
              /**
               * Format: date-time
               * @description RFC 3339 UTC with milliseconds
               */
              expiresAt: string;
              /** @description Whether this is the session the request came with */
              current: boolean;
              /** @enum {string} */
              method: "password" | "sso" | "invitation" | "password-reset";
            }[];
            meta: {
              hasMore: boolean;
              nextCursor: string | null;
            };
          };
        };
      };
    };
  };
  createSession: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": {
          /** @description Tenant slug */
          tenant: string;
          email: string;
          password: string;
        };
      };
    };
    responses: {
      /** @description Created */
      201: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            /** Format: uuid */
            id: string;
            /** @description Bearer token; shown only here */
            token: string;
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds
             */
            expiresAt: string;
            scopes: string[];
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds
             */
            createdAt: string;
          };
        };
      };
    };
  };
  acceptInvitation: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": {
          /** @description The invitation's token */
          token: string;
          /** @description The user's new password: at least 15 and at most 1024 characters */
          password: string;
        };
      };
    };
    responses: {
      /** @description Created */
      201: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            /** Format: uuid */
            id: string;
            /** @description Bearer token; shown only here */
            token: string;
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds
             */
            expiresAt: string;
            scopes: string[];
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds
             */
            createdAt: string;
          };
        };
      };
    };
  };
  changePassword: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": {
          /** @description The user's current password */
          currentPassword: string;
          /** @description The user's new password: at least 15 and at most 1024 characters, not one of the most common passwords */
          newPassword: string;
        };
      };
    };
    responses: {
      /** @description Changed */
      204: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  usePasswordReset: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": {
          /** @description The password reset's token */
          token: string;
          /** @description The user's new password: at least 15 and at most 1024 characters, not one of the most common passwords */
          password: string;
        };
      };
    };
    responses: {
      /** @description The new password is set */
      204: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  deleteCurrentSession: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Revoked */
      204: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  deleteSession: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Ended */
      204: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  getWhoami: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            principal: {
              /** Format: uuid */
              id: string;
              kind: "user" | "access_token";
              name: string;
              /** @description A user's current role (rules/contract §7); null for an access token */
              role: "owner" | "admin" | "viewer" | null;
            };
            tenant: {
              /** Format: uuid */
              id: string;
              slug: string;
              type: "system" | "customer";
            };
            scopes: string[];
          };
        };
      };
    };
  };
  listAccessTokens: {
    parameters: {
      query?: {
        limit?: number;
        cursor?: string;
        /** @description `asc` (oldest first, the default) or `desc` (newest first); a cursor keeps its order */
        order?: "asc" | "desc";
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            items: {
              /** Format: uuid */
              id: string;
              name: string;
              scopes: string[];
              /**
               * Format: date-time
               * @description RFC 3339 UTC with milliseconds
               */
              createdAt: string;
              expiresAt: string | null;
              revokedAt: string | null;
              createdBy: string | null;
            }[];
            meta: {
              hasMore: boolean;
              nextCursor: string | null;
            };
          };
        };
      };
    };
  };
  createAccessToken: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": {
          name: string;
          scopes: (
            | "tenants:list"
            | "tenants:read"
            | "tenants:create"
            | "tenants:write"
            | "system_diagnostics:read"
            | "admin:read"
            | "admin:write"
            | "workflows:transition"
            | "workflows:read"
            | "users:read"
            | "users:write"
            | "b2b_exchange_partner_inbox:create"
            | "b2b_exchange_partner_mailbox:list"
            | "b2b_exchange_partner_mailbox:claim"
            | "b2b_exchange_partner_mailbox:payload_read"
            | "b2b_exchange_partner_mailbox:acknowledge"
          )[];
          /** Format: date-time */
          expiresAt?: string;
        };
      };
    };
    responses: {
      /** @description Created */
      201: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            /** Format: uuid */
            id: string;
            name: string;
            scopes: string[];
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds
             */
            createdAt: string;
            expiresAt: string | null;
            revokedAt: string | null;
            createdBy: string | null;
            /** @description Bearer token; shown only in this response */
            token: string;
          };
        };
      };
    };
  };
  getAccessToken: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            /** Format: uuid */
            id: string;
            name: string;
            scopes: string[];
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds
             */
            createdAt: string;
            expiresAt: string | null;
            revokedAt: string | null;
            createdBy: string | null;
          };
        };
      };
    };
  };
  revokeAccessToken: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            /** Format: uuid */
            id: string;
            name: string;
            scopes: string[];
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds
             */
            createdAt: string;
            expiresAt: string | null;
            revokedAt: string | null;
            createdBy: string | null;
          };
        };
      };
    };
  };
  listUsers: {
    parameters: {
      query?: {
        limit?: number;
        cursor?: string;
        /** @description `asc` (oldest first, the default) or `desc` (newest first); a cursor keeps its order */
        order?: "asc" | "desc";
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            items: {
              /** Format: uuid */
              id: string;
              email: string;
              name: string;
              /** @description owner: every tenant scope; admin: the same without users:write; viewer: reads */
              role: "owner" | "admin" | "viewer";
              status: "invited" | "active" | "deactivated";
              /**
               * Format: date-time
               * @description RFC 3339 UTC with milliseconds
               */
              createdAt: string;
              /** @description The last sign-in (password or invitation); null before the first */
              lastSignInAt: string | null;
            }[];
            meta: {
              hasMore: boolean;
              nextCursor: string | null;
            };
          };
        };
      };
    };
  };
  inviteUser: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": {
          /**
           * Format: email
           * @description Unique in the tenant, case-insensitive
           */
          email: string;
          /** @description Defaults to the e-mail address */
          name?: string;
          /** @description owner: every tenant scope; admin: the same without users:write; viewer: reads */
          role: "owner" | "admin" | "viewer";
        };
      };
    };
    responses: {
      /** @description Created */
      201: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            /** Format: uuid */
            id: string;
            email: string;
            name: string;
            /** @description owner: every tenant scope; admin: the same without users:write; viewer: reads */
            role: "owner" | "admin" | "viewer";
            status: "invited" | "active" | "deactivated";
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds
             */
            createdAt: string;
            /** @description The last sign-in (password or invitation); null before the first */
            lastSignInAt: string | null;
            invitation: {
              /** @description Shown only in this response; stored as a hash. Accept it at POST /api/v1/auth/invitations */
              token: string;
              /**
               * Format: date-time
               * @description RFC 3339 UTC with milliseconds
               */
              expiresAt: string;
            };
          };
        };
      };
    };
  };
  getUser: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            /** Format: uuid */
            id: string;
            email: string;
            name: string;
            /** @description owner: every tenant scope; admin: the same without users:write; viewer: reads */
            role: "owner" | "admin" | "viewer";
            status: "invited" | "active" | "deactivated";
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds
             */
            createdAt: string;
            /** @description The last sign-in (password or invitation); null before the first */
            lastSignInAt: string | null;
          };
        };
      };
    };
  };
  updateUser: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    /** @description At least one field; a change that leaves the tenant without an active owner is 409 */
    requestBody: {
      content: {
        "application/json": {
          name?: string;
          /** @description owner: every tenant scope; admin: the same without users:write; viewer: reads */
          role?: "owner" | "admin" | "viewer";
          /** @description deactivated ends the user's sessions at once and refuses its sign-ins; active allows them again (only for a user that accepted its invitation) */
          status?: "active" | "deactivated";
        };
      };
    };
    responses: {
      /** @description OK */
      200: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            /** Format: uuid */
            id: string;
            email: string;
            name: string;
            /** @description owner: every tenant scope; admin: the same without users:write; viewer: reads */
            role: "owner" | "admin" | "viewer";
            status: "invited" | "active" | "deactivated";
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds
             */
            createdAt: string;
            /** @description The last sign-in (password or invitation); null before the first */
            lastSignInAt: string | null;
          };
        };
      };
    };
  };
  reissueInvitation: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Created */
      201: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            /** @description The new invitation's token: shown only in this answer, used once at POST /api/v1/auth/invitations */
            token: string;
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds
             */
            expiresAt: string;
          };
        };
      };
    };
  };
  issuePasswordReset: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Created */
      201: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            /** @description The reset token: shown only in this answer, used once */
            token: string;
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds
             */
            expiresAt: string;
          };
        };
      };
    };
  };
  getSsoSettings: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            issuer: string;
            clientId: string;
            autoCreate: {
              /** @enum {string} */
              role: "owner" | "admin" | "viewer";
              emailDomains: string[];
            } | null;
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds
             */
            updatedAt: string;
          };
        };
      };
    };
  };
  setSsoSettings: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": {
          /** @description The issuer identifier, exactly as its discovery document names it (`https://login.example.com/realms/acme`) */
          issuer: string;
          clientId: string;
          /** @description Sealed at rest; never returned */
          clientSecret: string;
          /** @description Users signing in for the first time with a verified e-mail address of one of these domains are created with this role */
          autoCreate: {
            /** @enum {string} */
            role: "owner" | "admin" | "viewer";
            emailDomains: string[];
          } | null;
        };
      };
    };
    responses: {
      /** @description OK */
      200: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            issuer: string;
            clientId: string;
            autoCreate: {
              /** @enum {string} */
              role: "owner" | "admin" | "viewer";
              emailDomains: string[];
            } | null;
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds
             */
            updatedAt: string;
          };
        };
      };
    };
  };
  deleteSsoSettings: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Removed */
      204: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  startSsoSignIn: {
    parameters: {
      query?: {
        /** @description A path on Hanse to land on after signing in (default `/console/`) */
        returnTo?: string;
      };
      header?: never;
      path: {
        /** @description The tenant's slug */
        tenantSlug: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description To the issuer's authorization endpoint (Location) */
      302: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  finishSsoSignIn: {
    parameters: {
      query?: {
        code?: string;
        state?: string;
        /** @description The issuer, when it says (RFC 9207); must be the tenant's */
        iss?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Signed in: to returnTo, with the console's session cookie */
      303: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  listTenants: {
    parameters: {
      query?: {
        limit?: number;
        cursor?: string;
        /** @description `asc` (oldest first, the default) or `desc` (newest first); a cursor keeps its order */
        order?: "asc" | "desc";
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            items: {
              /** Format: uuid */
              id: string;
              name: string;
              slug: string;
              type: "system" | "customer";
              /** @description suspended: offboarded until resumed (every credential of the tenant refused as unknown, its deliveries and webhooks wait, nothing deleted) */
              status: "provisioning" | "active" | "failed" | "suspended";
              /**
               * Format: date-time
               * @description RFC 3339 UTC with milliseconds
               */
              createdAt: string;
            }[];
            meta: {
              hasMore: boolean;
              nextCursor: string | null;
            };
          };
        };
      };
    };
  };
  createTenant: {
    parameters: {
      query?: never;
      header?: {
        /** @description Required (1–255 visible ASCII characters); without it 400 ERR_IDEMPOTENCY_KEY_REQUIRED */
        "idempotency-key"?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": {
          name: string;
          /** @description Lower-case letters, digits and inner hyphens; unique */
          slug: string;
          /** @description The tenant's first administrator */
          admin?: {
            email: string;
            /** @description At least 15 and at most 1024 characters, not one of the most common passwords (else 400 at /admin/password) */
            password: string;
            name?: string;
          };
        };
      };
    };
    responses: {
      /** @description Accepted */
      202: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          /** @description The new tenant's URL */
          Location?: string;
          /** @description Seconds before polling the status */
          "Retry-After"?: number;
          /** @description On a replayed answer */
          "Idempotent-Replayed"?: "true";
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            /** Format: uuid */
            tenantId: string;
            /** @enum {string} */
            status: "provisioning";
            statusHref: string;
          };
        };
      };
    };
  };
  getTenant: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        tenantId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            /** Format: uuid */
            id: string;
            name: string;
            slug: string;
            type: "system" | "customer";
            /** @description suspended: offboarded until resumed (every credential of the tenant refused as unknown, its deliveries and webhooks wait, nothing deleted) */
            status: "provisioning" | "active" | "failed" | "suspended";
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds
             */
            createdAt: string;
          };
        };
      };
    };
  };
  suspendTenant: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        tenantId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            /** Format: uuid */
            id: string;
            name: string;
            slug: string;
            type: "system" | "customer";
            /** @description suspended: offboarded until resumed (every credential of the tenant refused as unknown, its deliveries and webhooks wait, nothing deleted) */
            status: "provisioning" | "active" | "failed" | "suspended";
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds
             */
            createdAt: string;
          };
        };
      };
    };
  };
  resumeTenant: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        tenantId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            /** Format: uuid */
            id: string;
            name: string;
            slug: string;
            type: "system" | "customer";
            /** @description suspended: offboarded until resumed (every credential of the tenant refused as unknown, its deliveries and webhooks wait, nothing deleted) */
            status: "provisioning" | "active" | "failed" | "suspended";
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds
             */
            createdAt: string;
          };
        };
      };
    };
  };
  getTenantProvisioning: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        tenantId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          /** @description While not terminal */
          "Retry-After"?: number;
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            /** Format: uuid */
            tenantId: string;
            state: "pending" | "running" | "succeeded" | "failed";
            terminal: boolean;
            steps: {
              name: string;
              state: "pending" | "running" | "succeeded" | "failed";
            }[];
            error: {
              code: string;
              message: string;
            } | null;
            startedAt: string | null;
            completedAt: string | null;
          };
        };
      };
    };
  };
  listWorkflowDefinitions: {
    parameters: {
      query?: {
        limit?: number;
        cursor?: string;
        /** @description `asc` (oldest first, the default) or `desc` (newest first); a cursor keeps its order */
        order?: "asc" | "desc";
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            items: {
              kind: string;
              states: string[];
              initialState: string;
              transitions: {
                name: string;
                from: string[];
                to: string;
              }[];
              /**
               * Format: date-time
               * @description RFC 3339 UTC with milliseconds
               */
              createdAt: string;
              /**
               * Format: date-time
               * @description RFC 3339 UTC with milliseconds
               */
              updatedAt: string;
            }[];
            meta: {
              hasMore: boolean;
              nextCursor: string | null;
            };
          };
        };
      };
    };
  };
  createWorkflowDefinition: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": {
          /** @description Entity kind, unique in the tenant */
          kind: string;
          states: string[];
          /** @description State of a new entity */
          initialState: string;
          transitions: {
            /** @description Transition name */
            name: string;
            from: string[];
            /** @description State */
            to: string;
          }[];
        };
      };
    };
    responses: {
      /** @description Created */
      201: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            kind: string;
            states: string[];
            initialState: string;
            transitions: {
              name: string;
              from: string[];
              to: string;
            }[];
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds
             */
            createdAt: string;
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds
             */
            updatedAt: string;
          };
        };
      };
    };
  };
  getWorkflowDefinition: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        kind: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            kind: string;
            states: string[];
            initialState: string;
            transitions: {
              name: string;
              from: string[];
              to: string;
            }[];
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds
             */
            createdAt: string;
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds
             */
            updatedAt: string;
          };
        };
      };
    };
  };
  listEntities: {
    parameters: {
      query?: {
        kind?: string;
        limit?: number;
        cursor?: string;
        /** @description `asc` (oldest first, the default) or `desc` (newest first); a cursor keeps its order */
        order?: "asc" | "desc";
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            items: {
              /** Format: uuid */
              id: string;
              kind: string;
              state: string;
              /** @description Grows by one with every applied transition */
              version: number;
              /** @description Free-form attributes (a JSON object), e.g. `{"gtin":"4006381333931"}` for products */
              attributes: {
                [key: string]: unknown;
              };
              /**
               * Format: date-time
               * @description RFC 3339 UTC with milliseconds
               */
              createdAt: string;
              /**
               * Format: date-time
               * @description RFC 3339 UTC with milliseconds
               */
              updatedAt: string;
            }[];
            meta: {
              hasMore: boolean;
              nextCursor: string | null;
            };
          };
        };
      };
    };
  };
  createEntity: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": {
          /** @description An entity kind with a workflow definition */
          kind: string;
          /** @description Free-form attributes (a JSON object), e.g. `{"gtin":"4006381333931"}` for products */
          attributes: {
            [key: string]: unknown;
          };
        };
      };
    };
    responses: {
      /** @description Created */
      201: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            /** Format: uuid */
            id: string;
            kind: string;
            state: string;
            /** @description Grows by one with every applied transition */
            version: number;
            /** @description Free-form attributes (a JSON object), e.g. `{"gtin":"4006381333931"}` for products */
            attributes: {
              [key: string]: unknown;
            };
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds
             */
            createdAt: string;
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds
             */
            updatedAt: string;
          };
        };
      };
    };
  };
  getEntity: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            /** Format: uuid */
            id: string;
            kind: string;
            state: string;
            /** @description Grows by one with every applied transition */
            version: number;
            /** @description Free-form attributes (a JSON object), e.g. `{"gtin":"4006381333931"}` for products */
            attributes: {
              [key: string]: unknown;
            };
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds
             */
            createdAt: string;
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds
             */
            updatedAt: string;
          };
        };
      };
    };
  };
  listTransitionRequests: {
    parameters: {
      query?: {
        /** @description Only the requests for this entity */
        entityId?: string;
        /** @description Only the requests in this status: `pending`, `processing`, `succeeded` or `failed` */
        status?: string;
        limit?: number;
        cursor?: string;
        /** @description `asc` (oldest first, the default) or `desc` (newest first); a cursor keeps its order */
        order?: "asc" | "desc";
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            items: {
              /** Format: uuid */
              requestId: string;
              status: "pending" | "processing" | "succeeded" | "failed";
              entity: string;
              /** Format: uuid */
              entityId: string;
              transition: string;
              /**
               * Format: date-time
               * @description RFC 3339 UTC with milliseconds
               */
              createdAt: string;
              /**
               * Format: date-time
               * @description RFC 3339 UTC with milliseconds
               */
              updatedAt: string;
              completedAt: string | null;
              result: {
                fromState: string;
                toState: string;
              } | null;
              error: {
                code: string;
                message: string;
              } | null;
            }[];
            meta: {
              hasMore: boolean;
              nextCursor: string | null;
            };
          };
        };
      };
    };
  };
  requestTransition: {
    parameters: {
      query?: never;
      header: {
        /** @description The credential's tenant */
        "x-tenant-id": string;
        /** @description 1–255 characters of any kind, sent as UTF-8 */
        "x-idempotency-key": string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": {
          /** @description Entity kind, e.g. `product` */
          entity: string;
          /**
           * Format: uuid
           * @description The entity's id
           */
          entityId: string;
          /** @description Transition name, e.g. `submit` */
          transition: string;
          /** @description Any JSON object; part of the request's identity and passed to a lifecycle adapter */
          payload?: {
            [key: string]: unknown;
          };
        };
      };
    };
    responses: {
      /** @description Accepted */
      202: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          /** @description The request's status URL */
          Location?: string;
          /** @description Seconds before polling the status */
          "Retry-After"?: number;
          /** @description On a replayed answer */
          "Idempotent-Replayed"?: "true";
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            /** Format: uuid */
            requestId: string;
            /** @enum {string} */
            status: "pending";
            /** @description /api/v1/workflows/transition-requests/{requestId} */
            statusUrl: string;
          };
        };
      };
    };
  };
  getTransitionRequest: {
    parameters: {
      query?: never;
      header?: {
        /** @description When sent, the credential's tenant */
        "x-tenant-id"?: string;
      };
      path: {
        requestId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          /** @description While not terminal */
          "Retry-After"?: number;
          "Cache-Control"?: "no-store";
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            /** Format: uuid */
            requestId: string;
            status: "pending" | "processing" | "succeeded" | "failed";
            entity: string;
            /** Format: uuid */
            entityId: string;
            transition: string;
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds
             */
            createdAt: string;
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds
             */
            updatedAt: string;
            completedAt: string | null;
            result: {
              fromState: string;
              toState: string;
            } | null;
            error: {
              code: string;
              message: string;
            } | null;
          };
        };
      };
    };
  };
  listLifecycleAdapters: {
    parameters: {
      query?: {
        limit?: number;
        cursor?: string;
        /** @description `asc` (oldest first, the default) or `desc` (newest first); a cursor keeps its order */
        order?: "asc" | "desc";
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            items: {
              /** Format: uuid */
              id: string;
              kind: string;
              url: string;
              timeoutMs: number;
              maxAttempts: number;
              /**
               * Format: date-time
               * @description RFC 3339 UTC with milliseconds
               */
              createdAt: string;
            }[];
            meta: {
              hasMore: boolean;
              nextCursor: string | null;
            };
          };
        };
      };
    };
  };
  createLifecycleAdapter: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": {
          /** @description Entity kind the adapter guards */
          kind: string;
          /** @description HTTPS URL */
          url: string;
          /** @default 5000 */
          timeoutMs?: number;
          /** @default 5 */
          maxAttempts?: number;
        };
      };
    };
    responses: {
      /** @description Created */
      201: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            /** Format: uuid */
            id: string;
            kind: string;
            url: string;
            timeoutMs: number;
            maxAttempts: number;
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds
             */
            createdAt: string;
            /** @description Standard Webhooks signing secret (`whsec_…`); shown only here */
            secret: string;
          };
        };
      };
    };
  };
  getLifecycleAdapter: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            /** Format: uuid */
            id: string;
            kind: string;
            url: string;
            timeoutMs: number;
            maxAttempts: number;
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds
             */
            createdAt: string;
          };
        };
      };
    };
  };
  listApps: {
    parameters: {
      query?: {
        limit?: number;
        cursor?: string;
        /** @description `asc` (oldest first, the default) or `desc` (newest first); a cursor keeps its order */
        order?: "asc" | "desc";
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            items: {
              id: string;
              name: string;
              capabilities: string[];
              /**
               * Format: date-time
               * @description RFC 3339 UTC with milliseconds
               */
              createdAt: string;
            }[];
            meta: {
              hasMore: boolean;
              nextCursor: string | null;
            };
          };
        };
      };
    };
  };
  createApp: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": {
          /** @description Unique in the tenant: letters, digits, `.`, `_`, `:`, `-` (at most 64) */
          id: string;
          name: string;
          capabilities: string[];
        };
      };
    };
    responses: {
      /** @description Created */
      201: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            id: string;
            name: string;
            capabilities: string[];
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds
             */
            createdAt: string;
          };
        };
      };
    };
  };
  getApp: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description Unique in the tenant: letters, digits, `.`, `_`, `:`, `-` (at most 64) */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            id: string;
            name: string;
            capabilities: string[];
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds
             */
            createdAt: string;
          };
        };
      };
    };
  };
  listEntitlements: {
    parameters: {
      query?: {
        limit?: number;
        cursor?: string;
        /** @description `asc` (oldest first, the default) or `desc` (newest first); a cursor keeps its order */
        order?: "asc" | "desc";
      };
      header?: never;
      path: {
        /** @description Unique in the tenant: letters, digits, `.`, `_`, `:`, `-` (at most 64) */
        appId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            items: {
              appId: string;
              actorId: string;
              /** @enum {string} */
              status: "active" | "suspended" | "revoked";
              plan: string;
              capabilities: string[];
              /**
               * Format: date-time
               * @description RFC 3339 UTC with milliseconds
               */
              validFrom: string;
              /**
               * Format: date-time
               * @description RFC 3339 UTC with milliseconds
               */
              validUntil: string | null;
              /** @description The change of the (tenant, app) stream that set this state */
              sequence: number;
              /**
               * Format: date-time
               * @description RFC 3339 UTC with milliseconds
               */
              updatedAt: string;
            }[];
            meta: {
              hasMore: boolean;
              nextCursor: string | null;
            };
          };
        };
      };
    };
  };
  getEntitlement: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description Unique in the tenant: letters, digits, `.`, `_`, `:`, `-` (at most 64) */
        appId: string;
        /** @description A user or installation id: 1 to 128 characters, no control characters */
        actorId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            appId: string;
            actorId: string;
            /** @enum {string} */
            status: "active" | "suspended" | "revoked";
            plan: string;
            capabilities: string[];
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds
             */
            validFrom: string;
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds
             */
            validUntil: string | null;
            /** @description The change of the (tenant, app) stream that set this state */
            sequence: number;
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds
             */
            updatedAt: string;
          };
        };
      };
    };
  };
  setEntitlement: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description Unique in the tenant: letters, digits, `.`, `_`, `:`, `-` (at most 64) */
        appId: string;
        /** @description A user or installation id: 1 to 128 characters, no control characters */
        actorId: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": {
          /** @enum {string} */
          status: "active" | "suspended" | "revoked";
          plan: string;
          capabilities: string[];
          /**
           * Format: date-time
           * @description RFC 3339 UTC with milliseconds
           */
          validFrom?: string;
          /**
           * Format: date-time
           * @description RFC 3339 UTC with milliseconds
           */
          validUntil?: string | null;
        };
      };
    };
    responses: {
      /** @description OK */
      200: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            appId: string;
            actorId: string;
            /** @enum {string} */
            status: "active" | "suspended" | "revoked";
            plan: string;
            capabilities: string[];
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds
             */
            validFrom: string;
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds
             */
            validUntil: string | null;
            /** @description The change of the (tenant, app) stream that set this state */
            sequence: number;
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds
             */
            updatedAt: string;
          };
        };
      };
    };
  };
  listEntitlementHistory: {
    parameters: {
      query?: {
        limit?: number;
        cursor?: string;
      };
      header?: never;
      path: {
        /** @description Unique in the tenant: letters, digits, `.`, `_`, `:`, `-` (at most 64) */
        appId: string;
        /** @description A user or installation id: 1 to 128 characters, no control characters */
        actorId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            /** @description Newest first */
            items: {
              /** @description The change's sequence in the app's stream (as in the feed) */
              sequence: number;
              /** Format: uuid */
              eventId: string;
              entitlement: {
                appId: string;
                actorId: string;
                /** @enum {string} */
                status: "active" | "suspended" | "revoked";
                plan: string;
                capabilities: string[];
                /**
                 * Format: date-time
                 * @description RFC 3339 UTC with milliseconds
                 */
                validFrom: string;
                /**
                 * Format: date-time
                 * @description RFC 3339 UTC with milliseconds
                 */
                validUntil: string | null;
                /** @description The change of the (tenant, app) stream that set this state */
                sequence: number;
                /**
                 * Format: date-time
                 * @description RFC 3339 UTC with milliseconds
                 */
                updatedAt: string;
              } | null;
              /**
               * Format: date-time
               * @description RFC 3339 UTC with milliseconds
               */
              occurredAt: string;
              /**
               * Format: uuid
               * @description The principal (user, access token) that made the change, as audit events name it; null for changes recorded before principals were
               */
              changedBy: string | null;
            }[];
            meta: {
              hasMore: boolean;
              nextCursor: string | null;
              /** @description Changes of the app's stream up to this sequence are no longer kept (feed retention): an actor's earlier changes are missing from its history (0: none pruned) */
              prunedThrough: number;
            };
          };
        };
      };
    };
  };
  listServiceBindings: {
    parameters: {
      query?: {
        limit?: number;
        cursor?: string;
        /** @description `asc` (oldest first, the default) or `desc` (newest first); a cursor keeps its order */
        order?: "asc" | "desc";
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            items: {
              /** Format: uuid */
              id: string;
              appId: string;
              audience: string;
              requiredCapabilities: string[];
              /** @description The binding's newest credential */
              credentialId: string;
              /** @description revoked: every credential of the binding is refused and its webhook subscriptions stopped */
              status: "active" | "revoked";
              /**
               * Format: date-time
               * @description RFC 3339 UTC with milliseconds
               */
              revokedAt: string | null;
              /**
               * Format: date-time
               * @description RFC 3339 UTC with milliseconds
               */
              createdAt: string;
            }[];
            meta: {
              hasMore: boolean;
              nextCursor: string | null;
            };
          };
        };
      };
    };
  };
  createServiceBinding: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": {
          /** @description Unique in the tenant: letters, digits, `.`, `_`, `:`, `-` (at most 64) */
          appId: string;
          audience: string;
          requiredCapabilities: string[];
        };
      };
    };
    responses: {
      /** @description Created */
      201: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            /** Format: uuid */
            id: string;
            appId: string;
            audience: string;
            requiredCapabilities: string[];
            /** @description The binding's newest credential */
            credentialId: string;
            /** @description revoked: every credential of the binding is refused and its webhook subscriptions stopped */
            status: "active" | "revoked";
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds
             */
            revokedAt: string | null;
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds
             */
            createdAt: string;
            /** @description Shown only in this response */
            secret: string;
          };
        };
      };
    };
  };
  getServiceBinding: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            /** Format: uuid */
            id: string;
            appId: string;
            audience: string;
            requiredCapabilities: string[];
            /** @description The binding's newest credential */
            credentialId: string;
            /** @description revoked: every credential of the binding is refused and its webhook subscriptions stopped */
            status: "active" | "revoked";
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds
             */
            revokedAt: string | null;
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds
             */
            createdAt: string;
          };
        };
      };
    };
  };
  rotateServiceBindingCredential: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            /** Format: uuid */
            bindingId: string;
            credentialId: string;
            /** @description Shown only in this response */
            secret: string;
            previousCredentialId: string | null;
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds
             */
            previousValidUntil: string | null;
          };
        };
      };
    };
  };
  revokeServiceBinding: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            /** Format: uuid */
            id: string;
            appId: string;
            audience: string;
            requiredCapabilities: string[];
            /** @description The binding's newest credential */
            credentialId: string;
            /** @description revoked: every credential of the binding is refused and its webhook subscriptions stopped */
            status: "active" | "revoked";
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds
             */
            revokedAt: string | null;
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds
             */
            createdAt: string;
          };
        };
      };
    };
  };
  introspectEntitlement: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description A user or installation id: 1 to 128 characters, no control characters */
        actorId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            /** Format: uuid */
            tenantId: string;
            appId: string;
            actorId: string;
            entitled: boolean;
            /** @enum {string|null} */
            status: "active" | "suspended" | "revoked" | null;
            plan: string | null;
            capabilities: string[];
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds
             */
            validFrom: string | null;
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds
             */
            validUntil: string | null;
            sequence: number | null;
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds
             */
            evaluatedAt: string;
          };
        };
      };
    };
  };
  getEntitlementSnapshot: {
    parameters: {
      query?: {
        limit?: number;
        cursor?: string;
        asOfSequence?: number;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            asOfSequence: number;
            items: {
              appId: string;
              actorId: string;
              /** @enum {string} */
              status: "active" | "suspended" | "revoked";
              plan: string;
              capabilities: string[];
              /**
               * Format: date-time
               * @description RFC 3339 UTC with milliseconds
               */
              validFrom: string;
              /**
               * Format: date-time
               * @description RFC 3339 UTC with milliseconds
               */
              validUntil: string | null;
              /** @description The change of the (tenant, app) stream that set this state */
              sequence: number;
              /**
               * Format: date-time
               * @description RFC 3339 UTC with milliseconds
               */
              updatedAt: string;
            }[];
            meta: {
              hasMore: boolean;
              nextCursor: string | null;
            };
          };
        };
      };
    };
  };
  listEntitlementChanges: {
    parameters: {
      query: {
        afterSequence: number;
        limit?: number;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            items: {
              sequence: number;
              /** Format: uuid */
              eventId: string;
              /** @enum {string} */
              type: "entitlement.changed";
              actorId: string;
              entitlement: {
                appId: string;
                actorId: string;
                /** @enum {string} */
                status: "active" | "suspended" | "revoked";
                plan: string;
                capabilities: string[];
                /**
                 * Format: date-time
                 * @description RFC 3339 UTC with milliseconds
                 */
                validFrom: string;
                /**
                 * Format: date-time
                 * @description RFC 3339 UTC with milliseconds
                 */
                validUntil: string | null;
                /** @description The change of the (tenant, app) stream that set this state */
                sequence: number;
                /**
                 * Format: date-time
                 * @description RFC 3339 UTC with milliseconds
                 */
                updatedAt: string;
              } | null;
              /**
               * Format: date-time
               * @description RFC 3339 UTC with milliseconds
               */
              occurredAt: string;
            }[];
            meta: {
              hasMore: boolean;
              lastSequence: number;
              latestSequence: number;
            };
          };
        };
      };
    };
  };
  issueGrant: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description A user or installation id: 1 to 128 characters, no control characters */
        actorId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            /** @description JWS compact serialization, header typ entitlement-grant+jwt */
            grant: string;
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds
             */
            expiresAt: string;
            keyId: string;
          };
        };
      };
    };
  };
  getGrantJwks: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            keys: {
              /** @enum {string} */
              kty: "OKP";
              /** @enum {string} */
              crv: "Ed25519";
              x: string;
              kid: string;
              /** @enum {string} */
              alg: "EdDSA";
              /** @enum {string} */
              use: "sig";
            }[];
          };
        };
      };
    };
  };
  listSigningKeys: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        tenantId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            items: {
              kid: string;
              state: "next" | "scheduled" | "signing" | "retired" | "expired" | "withdrawn";
              /**
               * Format: date-time
               * @description RFC 3339 UTC with milliseconds
               */
              createdAt: string;
              /**
               * Format: date-time
               * @description RFC 3339 UTC with milliseconds
               */
              activatesAt: string | null;
              /**
               * Format: date-time
               * @description RFC 3339 UTC with milliseconds
               */
              retiresAt: string | null;
              /**
               * Format: date-time
               * @description RFC 3339 UTC with milliseconds
               */
              expiresAt: string | null;
              /**
               * Format: date-time
               * @description RFC 3339 UTC with milliseconds
               */
              withdrawnAt: string | null;
            }[];
          };
        };
      };
    };
  };
  rotateSigningKey: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        tenantId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            kid: string;
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds
             */
            activatesAt: string;
          };
        };
      };
    };
  };
  withdrawSigningKey: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        tenantId: string;
        kid: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description No Content */
      204: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  listWebhookSubscriptions: {
    parameters: {
      query?: {
        limit?: number;
        cursor?: string;
        /** @description `asc` (oldest first, the default) or `desc` (newest first); a cursor keeps its order */
        order?: "asc" | "desc";
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            items: {
              /** Format: uuid */
              id: string;
              /** @description Null for an operator subscription */
              bindingId: string | null;
              /** @description Null for an operator subscription */
              appId: string | null;
              url: string;
              /** @description An operator subscription's event types (rules/contract §8); null for a binding's */
              eventTypes:
                | (
                    | "exchange.upload.rejected"
                    | "exchange.upload.failed"
                    | "exchange.delivery.overdue"
                    | "exchange.delivery.failed"
                    | "workflows.request.failed"
                  )[]
                | null;
              enabled: boolean;
              /** @description Why deliveries stopped */
              disabledReason: string | null;
              /**
               * Format: date-time
               * @description RFC 3339 UTC with milliseconds
               */
              failingSince: string | null;
              /**
               * Format: date-time
               * @description RFC 3339 UTC with milliseconds
               */
              createdAt: string;
            }[];
            meta: {
              hasMore: boolean;
              nextCursor: string | null;
            };
          };
        };
      };
    };
  };
  createWebhookSubscription: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": {
          /** Format: uuid */
          bindingId?: string;
          url: string;
          /** @description Without `bindingId`: a tenant's operator subscription to these event types (rules/contract §8); required then, and not allowed with `bindingId` */
          eventTypes?: (
            | "exchange.upload.rejected"
            | "exchange.upload.failed"
            | "exchange.delivery.overdue"
            | "exchange.delivery.failed"
            | "workflows.request.failed"
          )[];
        };
      };
    };
    responses: {
      /** @description Created */
      201: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            /** Format: uuid */
            id: string;
            /** @description Null for an operator subscription */
            bindingId: string | null;
            /** @description Null for an operator subscription */
            appId: string | null;
            url: string;
            /** @description An operator subscription's event types (rules/contract §8); null for a binding's */
            eventTypes:
              | (
                  | "exchange.upload.rejected"
                  | "exchange.upload.failed"
                  | "exchange.delivery.overdue"
                  | "exchange.delivery.failed"
                  | "workflows.request.failed"
                )[]
              | null;
            enabled: boolean;
            /** @description Why deliveries stopped */
            disabledReason: string | null;
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds
             */
            failingSince: string | null;
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds
             */
            createdAt: string;
            /** @description Standard Webhooks secret `whsec_…`, shown only here */
            secret: string;
          };
        };
      };
    };
  };
  getWebhookSubscription: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            /** Format: uuid */
            id: string;
            /** @description Null for an operator subscription */
            bindingId: string | null;
            /** @description Null for an operator subscription */
            appId: string | null;
            url: string;
            /** @description An operator subscription's event types (rules/contract §8); null for a binding's */
            eventTypes:
              | (
                  | "exchange.upload.rejected"
                  | "exchange.upload.failed"
                  | "exchange.delivery.overdue"
                  | "exchange.delivery.failed"
                  | "workflows.request.failed"
                )[]
              | null;
            enabled: boolean;
            /** @description Why deliveries stopped */
            disabledReason: string | null;
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds
             */
            failingSince: string | null;
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds
             */
            createdAt: string;
          };
        };
      };
    };
  };
  deleteWebhookSubscription: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Deleted */
      204: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  listWebhookAttempts: {
    parameters: {
      query?: {
        limit?: number;
        cursor?: string;
      };
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            items: {
              /** Format: uuid */
              id: string;
              /** Format: uuid */
              deliveryId: string;
              /** @description The entitlement change's sequence; null for an operator event */
              sequence: number | null;
              attempt: number;
              /**
               * Format: date-time
               * @description RFC 3339 UTC with milliseconds
               */
              attemptedAt: string;
              /** @description HTTP status; null when no answer came */
              status: number | null;
              latencyMs: number;
              /** @description address, dns, timeout, connect, tls, protocol or http-<status>; null on success */
              errorClass: string | null;
            }[];
            meta: {
              hasMore: boolean;
              nextCursor: string | null;
            };
          };
        };
      };
    };
  };
  enableWebhookSubscription: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            /** Format: uuid */
            id: string;
            /** @description Null for an operator subscription */
            bindingId: string | null;
            /** @description Null for an operator subscription */
            appId: string | null;
            url: string;
            /** @description An operator subscription's event types (rules/contract §8); null for a binding's */
            eventTypes:
              | (
                  | "exchange.upload.rejected"
                  | "exchange.upload.failed"
                  | "exchange.delivery.overdue"
                  | "exchange.delivery.failed"
                  | "workflows.request.failed"
                )[]
              | null;
            enabled: boolean;
            /** @description Why deliveries stopped */
            disabledReason: string | null;
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds
             */
            failingSince: string | null;
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds
             */
            createdAt: string;
          };
        };
      };
    };
  };
  disableWebhookSubscription: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            /** Format: uuid */
            id: string;
            /** @description Null for an operator subscription */
            bindingId: string | null;
            /** @description Null for an operator subscription */
            appId: string | null;
            url: string;
            /** @description An operator subscription's event types (rules/contract §8); null for a binding's */
            eventTypes:
              | (
                  | "exchange.upload.rejected"
                  | "exchange.upload.failed"
                  | "exchange.delivery.overdue"
                  | "exchange.delivery.failed"
                  | "workflows.request.failed"
                )[]
              | null;
            enabled: boolean;
            /** @description Why deliveries stopped */
            disabledReason: string | null;
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds
             */
            failingSince: string | null;
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds
             */
            createdAt: string;
          };
        };
      };
    };
  };
  recoverWebhookSubscription: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": {
          fromSequence: number;
        };
      };
    };
    responses: {
      /** @description OK */
      200: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            /** Format: uuid */
            subscriptionId: string;
            fromSequence: number;
            /** @description Deliveries queued (changes still in the feed) */
            enqueued: number;
          };
        };
      };
    };
  };
  rotateWebhookSecret: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            /** Format: uuid */
            subscriptionId: string;
            /** @description The new `whsec_…` secret, shown only here */
            secret: string;
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds
             */
            previousSecretValidUntil: string;
          };
        };
      };
    };
  };
  listPartners: {
    parameters: {
      query?: {
        limit?: number;
        cursor?: string;
        /** @description `asc` (oldest first, the default) or `desc` (newest first); a cursor keeps its order */
        order?: "asc" | "desc";
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            items: {
              /** Format: uuid */
              id: string;
              name: string;
              /**
               * Format: date-time
               * @description RFC 3339 UTC with milliseconds
               */
              createdAt: string;
              /**
               * Format: date-time
               * @description RFC 3339 UTC with milliseconds
               */
              updatedAt: string;
            }[];
            meta: {
              hasMore: boolean;
              nextCursor: string | null;
            };
          };
        };
      };
    };
  };
  createPartner: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": {
          name: string;
        };
      };
    };
    responses: {
      /** @description Created */
      201: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            /** Format: uuid */
            id: string;
            name: string;
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds
             */
            createdAt: string;
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds
             */
            updatedAt: string;
          };
        };
      };
    };
  };
  getPartner: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            /** Format: uuid */
            id: string;
            name: string;
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds
             */
            createdAt: string;
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds
             */
            updatedAt: string;
          };
        };
      };
    };
  };
  updatePartner: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": {
          name: string;
        };
      };
    };
    responses: {
      /** @description OK */
      200: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            /** Format: uuid */
            id: string;
            name: string;
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds
             */
            createdAt: string;
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds
             */
            updatedAt: string;
          };
        };
      };
    };
  };
  listConnections: {
    parameters: {
      query?: {
        /** @description Only this partner's connections */
        partnerId?: string;
        limit?: number;
        /** @description The previous page's `meta.nextCursor`, with the same filters and order */
        cursor?: string;
        /** @description `asc` (oldest first, the default) or `desc` (newest first); a cursor keeps its order */
        order?: "asc" | "desc";
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            items: {
              /** Format: uuid */
              id: string;
              /** Format: uuid */
              tenantId: string;
              /** Format: uuid */
              partnerId: string;
              name: string;
              /** @enum {string} */
              apiVersion: "api.v1";
              /** @enum {string} */
              status: "active" | "suspended";
              /** @description Seconds a delivery may wait in the mailbox without an acknowledgement before it is overdue (60–2592000; null: never overdue; default 86400) */
              collectionDeadlineSeconds: number | null;
              activeProfileRevision: {
                revision: number;
                directory: string;
                syntaxVersion: number;
                syntaxIdentifier: string;
                partnerIdentification: {
                  id: string;
                  qualifier?: string;
                };
                ownIdentification: {
                  id: string;
                  qualifier?: string;
                };
                responses: {
                  contrl: string;
                  aperak: string;
                  ordrsp: string;
                };
                orderValidation: string;
                duplicateWindowDays: number;
                active: boolean;
                /**
                 * Format: date-time
                 * @description RFC 3339 UTC with milliseconds
                 */
                createdAt: string;
              };
              /**
               * Format: date-time
               * @description RFC 3339 UTC with milliseconds
               */
              createdAt: string;
              /**
               * Format: date-time
               * @description RFC 3339 UTC with milliseconds
               */
              updatedAt: string;
            }[];
            meta: {
              hasMore: boolean;
              nextCursor: string | null;
            };
          };
        };
      };
    };
  };
  createConnection: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": {
          /** Format: uuid */
          partnerId: string;
          /** @description What people call the connection; defaults to the partner's name */
          name?: string;
          /** @description Seconds a delivery may wait in the mailbox without an acknowledgement before it is overdue (60–2592000; null: never overdue; default 86400) */
          collectionDeadlineSeconds?: number | null;
          profile: {
            directory: "D96A" | "D25A";
            syntaxVersion: 3 | 4;
            syntaxIdentifier: "UNOA" | "UNOB" | "UNOC" | "UNOD" | "UNOE" | "UNOF" | "UNOW" | "UNOY";
            partnerIdentification: {
              id: string;
              qualifier?: string;
            };
            ownIdentification: {
              id: string;
              qualifier?: string;
            };
            responses?: {
              /** @default on-error */
              contrl?: "always" | "on-request" | "on-error";
              /** @default on-error */
              aperak?: "always" | "on-error" | "never";
              /** @default auto */
              ordrsp?: "auto" | "never";
            };
            /** @default none */
            orderValidation?: "none" | "catalog";
            /**
             * @description Days an interchange (UNB sender identification, recipient identification and control reference) of a processed upload counts as a duplicate when uploaded again on the connection; 0 turns the check off
             * @default 30
             */
            duplicateWindowDays?: number;
          };
          status?: "active" | "suspended";
        };
      };
    };
    responses: {
      /** @description Created */
      201: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            tenantId: string;
            /** Format: uuid */
            partnerId: string;
            name: string;
            /** @enum {string} */
            apiVersion: "api.v1";
            /** @enum {string} */
            status: "active" | "suspended";
            /** @description Seconds a delivery may wait in the mailbox without an acknowledgement before it is overdue (60–2592000; null: never overdue; default 86400) */
            collectionDeadlineSeconds: number | null;
            activeProfileRevision: {
              revision: number;
              directory: string;
              syntaxVersion: number;
              syntaxIdentifier: string;
              partnerIdentification: {
                id: string;
                qualifier?: string;
              };
              ownIdentification: {
                id: string;
                qualifier?: string;
              };
              responses: {
                contrl: string;
                aperak: string;
                ordrsp: string;
              };
              orderValidation: string;
              duplicateWindowDays: number;
              active: boolean;
              /**
               * Format: date-time
               * @description RFC 3339 UTC with milliseconds
               */
              createdAt: string;
            };
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds
             */
            createdAt: string;
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds
             */
            updatedAt: string;
          };
        };
      };
    };
  };
  getConnection: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            tenantId: string;
            /** Format: uuid */
            partnerId: string;
            name: string;
            /** @enum {string} */
            apiVersion: "api.v1";
            /** @enum {string} */
            status: "active" | "suspended";
            /** @description Seconds a delivery may wait in the mailbox without an acknowledgement before it is overdue (60–2592000; null: never overdue; default 86400) */
            collectionDeadlineSeconds: number | null;
            activeProfileRevision: {
              revision: number;
              directory: string;
              syntaxVersion: number;
              syntaxIdentifier: string;
              partnerIdentification: {
                id: string;
                qualifier?: string;
              };
              ownIdentification: {
                id: string;
                qualifier?: string;
              };
              responses: {
                contrl: string;
                aperak: string;
                ordrsp: string;
              };
              orderValidation: string;
              duplicateWindowDays: number;
              active: boolean;
              /**
               * Format: date-time
               * @description RFC 3339 UTC with milliseconds
               */
              createdAt: string;
            };
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds
             */
            createdAt: string;
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds
             */
            updatedAt: string;
          };
        };
      };
    };
  };
  updateConnection: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": {
          status?: "active" | "suspended";
          /** @description What people call the connection; defaults to the partner's name */
          name?: string;
          /** @description Seconds a delivery may wait in the mailbox without an acknowledgement before it is overdue (60–2592000; null: never overdue; default 86400) */
          collectionDeadlineSeconds?: number | null;
        };
      };
    };
    responses: {
      /** @description OK */
      200: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            tenantId: string;
            /** Format: uuid */
            partnerId: string;
            name: string;
            /** @enum {string} */
            apiVersion: "api.v1";
            /** @enum {string} */
            status: "active" | "suspended";
            /** @description Seconds a delivery may wait in the mailbox without an acknowledgement before it is overdue (60–2592000; null: never overdue; default 86400) */
            collectionDeadlineSeconds: number | null;
            activeProfileRevision: {
              revision: number;
              directory: string;
              syntaxVersion: number;
              syntaxIdentifier: string;
              partnerIdentification: {
                id: string;
                qualifier?: string;
              };
              ownIdentification: {
                id: string;
                qualifier?: string;
              };
              responses: {
                contrl: string;
                aperak: string;
                ordrsp: string;
              };
              orderValidation: string;
              duplicateWindowDays: number;
              active: boolean;
              /**
               * Format: date-time
               * @description RFC 3339 UTC with milliseconds
               */
              createdAt: string;
            };
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds
             */
            createdAt: string;
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds
             */
            updatedAt: string;
          };
        };
      };
    };
  };
  listProfileRevisions: {
    parameters: {
      query?: {
        limit?: number;
        cursor?: string;
        /** @description `asc` (oldest first, the default) or `desc` (newest first); a cursor keeps its order */
        order?: "asc" | "desc";
      };
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            items: {
              revision: number;
              directory: string;
              syntaxVersion: number;
              syntaxIdentifier: string;
              partnerIdentification: {
                id: string;
                qualifier?: string;
              };
              ownIdentification: {
                id: string;
                qualifier?: string;
              };
              responses: {
                contrl: string;
                aperak: string;
                ordrsp: string;
              };
              orderValidation: string;
              duplicateWindowDays: number;
              active: boolean;
              /**
               * Format: date-time
               * @description RFC 3339 UTC with milliseconds
               */
              createdAt: string;
            }[];
            meta: {
              hasMore: boolean;
              nextCursor: string | null;
            };
          };
        };
      };
    };
  };
  createProfileRevision: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": {
          directory: "D96A" | "D25A";
          syntaxVersion: 3 | 4;
          syntaxIdentifier: "UNOA" | "UNOB" | "UNOC" | "UNOD" | "UNOE" | "UNOF" | "UNOW" | "UNOY";
          partnerIdentification: {
            id: string;
            qualifier?: string;
          };
          ownIdentification: {
            id: string;
            qualifier?: string;
          };
          responses?: {
            /** @default on-error */
            contrl?: "always" | "on-request" | "on-error";
            /** @default on-error */
            aperak?: "always" | "on-error" | "never";
            /** @default auto */
            ordrsp?: "auto" | "never";
          };
          /** @default none */
          orderValidation?: "none" | "catalog";
          /**
           * @description Days an interchange (UNB sender identification, recipient identification and control reference) of a processed upload counts as a duplicate when uploaded again on the connection; 0 turns the check off
           * @default 30
           */
          duplicateWindowDays?: number;
        };
      };
    };
    responses: {
      /** @description Created */
      201: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            revision: number;
            directory: string;
            syntaxVersion: number;
            syntaxIdentifier: string;
            partnerIdentification: {
              id: string;
              qualifier?: string;
            };
            ownIdentification: {
              id: string;
              qualifier?: string;
            };
            responses: {
              contrl: string;
              aperak: string;
              ordrsp: string;
            };
            orderValidation: string;
            duplicateWindowDays: number;
            active: boolean;
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds
             */
            createdAt: string;
          };
        };
      };
    };
  };
  getProfileRevision: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
        revision: number;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            revision: number;
            directory: string;
            syntaxVersion: number;
            syntaxIdentifier: string;
            partnerIdentification: {
              id: string;
              qualifier?: string;
            };
            ownIdentification: {
              id: string;
              qualifier?: string;
            };
            responses: {
              contrl: string;
              aperak: string;
              ordrsp: string;
            };
            orderValidation: string;
            duplicateWindowDays: number;
            active: boolean;
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds
             */
            createdAt: string;
          };
        };
      };
    };
  };
  activateProfileRevision: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
        revision: number;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            revision: number;
            directory: string;
            syntaxVersion: number;
            syntaxIdentifier: string;
            partnerIdentification: {
              id: string;
              qualifier?: string;
            };
            ownIdentification: {
              id: string;
              qualifier?: string;
            };
            responses: {
              contrl: string;
              aperak: string;
              ordrsp: string;
            };
            orderValidation: string;
            duplicateWindowDays: number;
            active: boolean;
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds
             */
            createdAt: string;
          };
        };
      };
    };
  };
  listApiKeys: {
    parameters: {
      query?: {
        /** @description Only this partner's API keys */
        partnerId?: string;
        limit?: number;
        /** @description The previous page's `meta.nextCursor`, with the same filters and order */
        cursor?: string;
        /** @description `asc` (oldest first, the default) or `desc` (newest first); a cursor keeps its order */
        order?: "asc" | "desc";
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            items: {
              /** Format: uuid */
              id: string;
              /** Format: uuid */
              apiKeyId: string;
              name: string;
              /** Format: uuid */
              partnerId: string;
              scopes: string[];
              connectionIds: string[] | null;
              /**
               * Format: date-time
               * @description RFC 3339 UTC with milliseconds
               */
              createdAt: string;
              revokedAt: string | null;
            }[];
            meta: {
              hasMore: boolean;
              nextCursor: string | null;
            };
          };
        };
      };
    };
  };
  createApiKey: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": {
          /** Format: uuid */
          partnerId: string;
          scopes: (
            | "b2b_exchange_partner_inbox:create"
            | "b2b_exchange_partner_mailbox:list"
            | "b2b_exchange_partner_mailbox:claim"
            | "b2b_exchange_partner_mailbox:payload_read"
            | "b2b_exchange_partner_mailbox:acknowledge"
          )[];
          connectionIds?: string[];
          name?: string;
        };
      };
    };
    responses: {
      /** @description Created */
      201: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            apiKeyId: string;
            name: string;
            /** Format: uuid */
            partnerId: string;
            scopes: string[];
            connectionIds: string[] | null;
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds
             */
            createdAt: string;
            revokedAt: string | null;
            /** @description `<apiKeyId>:<secret>`; shown only in this response */
            token: string;
          };
        };
      };
    };
  };
  getApiKey: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            apiKeyId: string;
            name: string;
            /** Format: uuid */
            partnerId: string;
            scopes: string[];
            connectionIds: string[] | null;
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds
             */
            createdAt: string;
            revokedAt: string | null;
          };
        };
      };
    };
  };
  revokeApiKey: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            apiKeyId: string;
            name: string;
            /** Format: uuid */
            partnerId: string;
            scopes: string[];
            connectionIds: string[] | null;
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds
             */
            createdAt: string;
            revokedAt: string | null;
          };
        };
      };
    };
  };
  verifyAuditTrail: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            /** @description false when any sealed record was changed, removed or reordered */
            verified: boolean;
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds
             */
            checkedThrough: string;
            /** @description Records checked */
            count: number;
            /** @description The last seal: keep it, to find out later that the chain was not cut short after it */
            head: {
              sequence: number;
              /** @description SHA-256, lowercase hex */
              hash: string;
            } | null;
            /** @description Records written but not sealed yet */
            unsealed: number;
            /** @description The first record that does not verify */
            problem: {
              /** @enum {string} */
              kind: "changed" | "removed" | "reordered";
              /** @description The place in the chain where it was found */
              sequence: number;
              /** @description The record found there (null: records missing at the chain's end) */
              eventId: string | null;
            } | null;
          };
        };
      };
    };
  };
  exportAuditEvents: {
    parameters: {
      query?: {
        /** @description The stretch of the chain from the first record that occurred at or after this time (RFC 3339) */
        occurredFrom?: string;
        /** @description … to the last record that occurred before this time (RFC 3339) */
        occurredBefore?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description One record per line (`application/x-ndjson`) */
      200: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content: {
          "application/x-ndjson": {
            /** Format: uuid */
            id: string;
            type: string;
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds
             */
            occurredAt: string;
            principalId: string | null;
            principalKind: ("user" | "access_token" | "partner_api_key" | "service_credential") | null;
            /** @description What was changed: `user`, `partner`, … */
            targetType: string | null;
            targetId: string | null;
            /** @description The client's IP address (X-Forwarded-For only from HANSE_TRUST_PROXY's proxies) */
            sourceAddress: string | null;
            /** @description The X-Correlation-Id of the request that made the change */
            correlationId: string | null;
            /** @description `*.updated` records: the names of the fields changed, never their values */
            changes: string[] | null;
            /** @description `session.*` records: how the session was opened (password, sso, invitation, password-reset) */
            method: string | null;
            connectionId: string | null;
            uploadId: string | null;
            deliveryAttemptId: string | null;
            byteCount: number | null;
            outcome: string | null;
            /** @description Further ids, counts and states of the act; never a secret */
            data: {
              [key: string]: string | number | boolean | null;
            };
            /** @description null: not sealed yet (sealed within HANSE_AUDIT_SEAL_SECONDS) */
            seal: {
              /** @description The record's place in the tenant's chain */
              sequence: number;
              /** @description SHA-256, lowercase hex */
              previous: string;
              /** @description hex(SHA-256(previous + "\n" + the record without `seal`, as JSON with sorted keys and no whitespace)) */
              hash: string;
            } | null;
          };
        };
      };
    };
  };
  listAuditEvents: {
    parameters: {
      query?: {
        /** @description One type (`user.updated`), or every type under a prefix ending in `.` (`user.`) */
        type?: string;
        /** @description Only the acts of this principal */
        principalId?: string;
        /** @description Only the acts on this object (its id) */
        targetId?: string;
        /** @description Only records that occurred at or after this time (RFC 3339) */
        occurredFrom?: string;
        /** @description Only records that occurred before this time (RFC 3339) */
        occurredBefore?: string;
        /** @description Oldest first (`asc`, the default) or newest first (`desc`) */
        order?: "asc" | "desc";
        limit?: number;
        cursor?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            items: {
              /** Format: uuid */
              id: string;
              type: string;
              /**
               * Format: date-time
               * @description RFC 3339 UTC with milliseconds
               */
              occurredAt: string;
              principalId: string | null;
              principalKind: ("user" | "access_token" | "partner_api_key" | "service_credential") | null;
              /** @description What was changed: `user`, `partner`, … */
              targetType: string | null;
              targetId: string | null;
              /** @description The client's IP address (X-Forwarded-For only from HANSE_TRUST_PROXY's proxies) */
              sourceAddress: string | null;
              /** @description The X-Correlation-Id of the request that made the change */
              correlationId: string | null;
              /** @description `*.updated` records: the names of the fields changed, never their values */
              changes: string[] | null;
              /** @description `session.*` records: how the session was opened (password, sso, invitation, password-reset) */
              method: string | null;
              connectionId: string | null;
              uploadId: string | null;
              deliveryAttemptId: string | null;
              byteCount: number | null;
              outcome: string | null;
              /** @description Further ids, counts and states of the act; never a secret */
              data: {
                [key: string]: string | number | boolean | null;
              };
            }[];
            meta: {
              hasMore: boolean;
              nextCursor: string | null;
            };
          };
        };
      };
    };
  };
  getAuditEvent: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            /** Format: uuid */
            id: string;
            type: string;
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds
             */
            occurredAt: string;
            principalId: string | null;
            principalKind: ("user" | "access_token" | "partner_api_key" | "service_credential") | null;
            /** @description What was changed: `user`, `partner`, … */
            targetType: string | null;
            targetId: string | null;
            /** @description The client's IP address (X-Forwarded-For only from HANSE_TRUST_PROXY's proxies) */
            sourceAddress: string | null;
            /** @description The X-Correlation-Id of the request that made the change */
            correlationId: string | null;
            /** @description `*.updated` records: the names of the fields changed, never their values */
            changes: string[] | null;
            /** @description `session.*` records: how the session was opened (password, sso, invitation, password-reset) */
            method: string | null;
            connectionId: string | null;
            uploadId: string | null;
            deliveryAttemptId: string | null;
            byteCount: number | null;
            outcome: string | null;
            /** @description Further ids, counts and states of the act; never a secret */
            data: {
              [key: string]: string | number | boolean | null;
            };
          };
        };
      };
    };
  };
  listUploads: {
    parameters: {
      query?: {
        /** @description Only this connection's */
        connectionId?: string;
        /** @description Only these statuses: one of received, processing, processed, rejected, failed, or several separated by commas */
        status?: string;
        /** @description Only those created at or after this time (RFC 3339) */
        from?: string;
        /** @description Only those created before this time (RFC 3339; exclusive) */
        to?: string;
        limit?: number;
        /** @description The previous page's `meta.nextCursor`, with the same filters and order */
        cursor?: string;
        /** @description `asc` (oldest first, the default) or `desc` (newest first); a cursor keeps its order */
        order?: "asc" | "desc";
        /** @description Only the uploads whose interchange has this control reference (UNB 0020) */
        interchangeReference?: string;
        /** @description Only the uploads with a message of this document number (BGM 1004, e.g. the order number); uploads processed before 2026-11-28 have none */
        documentNumber?: string;
        /** @description Only the uploads of this partner's connections */
        partnerId?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            items: {
              /** Format: uuid */
              id: string;
              /** Format: uuid */
              uploadId: string;
              /** Format: uuid */
              connectionId: string;
              /** Format: uuid */
              partnerId: string;
              /** @description The partner's name */
              partnerName: string;
              /** @description The connection's name */
              connectionName: string;
              interchangeId: string | null;
              /** @enum {string} */
              status: "received" | "processing" | "processed" | "rejected" | "failed";
              byteCount: number;
              profileRevision: number;
              error: string | null;
              /**
               * Format: date-time
               * @description RFC 3339 UTC with milliseconds
               */
              createdAt: string;
              /**
               * Format: date-time
               * @description RFC 3339 UTC with milliseconds
               */
              updatedAt: string;
              completedAt: string | null;
              /** @description Outbound messages the upload produced, per message type: `{"CONTRL":1,"ORDRSP":2}` */
              outboundCounts: {
                [key: string]: number;
              };
              /** @description How many findings processing recorded */
              findingCount: number;
              /**
               * Format: uuid
               * @description The earlier processed upload of the connection whose interchange this one repeats (the upload was rejected as a duplicate), else null
               */
              duplicateOf: string | null;
            }[];
            meta: {
              hasMore: boolean;
              nextCursor: string | null;
            };
          };
        };
      };
    };
  };
  getUpload: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            uploadId: string;
            /** Format: uuid */
            connectionId: string;
            /** Format: uuid */
            partnerId: string;
            /** @description The partner's name */
            partnerName: string;
            /** @description The connection's name */
            connectionName: string;
            interchangeId: string | null;
            /** @enum {string} */
            status: "received" | "processing" | "processed" | "rejected" | "failed";
            byteCount: number;
            profileRevision: number;
            error: string | null;
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds
             */
            createdAt: string;
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds
             */
            updatedAt: string;
            completedAt: string | null;
            /** @description Outbound messages the upload produced, per message type: `{"CONTRL":1,"ORDRSP":2}` */
            outboundCounts: {
              [key: string]: number;
            };
            /** @description How many findings processing recorded */
            findingCount: number;
            /**
             * Format: uuid
             * @description The earlier processed upload of the connection whose interchange this one repeats (the upload was rejected as a duplicate), else null
             */
            duplicateOf: string | null;
            findings: {
              /** @enum {string} */
              level: "interchange" | "message" | "application";
              /** @description ISO 9735 syntax error code (0085) of an interchange or message finding; the APERAK error code (ERC) of an application finding */
              code: string;
              /** @description What is wrong, in plain words */
              message: string;
              /** @description UNH 0062 of the message concerned */
              messageReference: string | null;
              /** @description Tag of the segment concerned */
              segment: string | null;
              /** @description 1-based position of that segment in the interchange (UNA not counted) */
              position: number | null;
              /** @description Element position ("2", or "2:1" for a component); null for a whole segment */
              element: string | null;
            }[];
            outbound: {
              /** Format: uuid */
              deliveryAttemptId: string;
              messageType: string;
              /** @enum {string} */
              status: "ready" | "claimed" | "acknowledged" | "failed";
              interchangeId: string;
              messageReference: string;
              /** @description UNH 0062 of the inbound message this one answers; null for a CONTRL (it answers the interchange) */
              answersMessageReference: string | null;
              /**
               * Format: date-time
               * @description RFC 3339 UTC with milliseconds
               */
              createdAt: string;
              acknowledgedAt: string | null;
            }[];
          };
        };
      };
    };
  };
  getUploadContent: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The EDIFACT bytes exactly as stored, with Content-Length */
      200: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          "Cache-Control"?: "no-store";
          [name: string]: unknown;
        };
        content: {
          "application/edifact": string;
        };
      };
    };
  };
  getUploadSegments: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            segments: {
              /** @description 1-based position in the interchange (UNA not counted) */
              position: number;
              tag: string;
              /** @description 0 interchange envelope, 1 group envelope, 2 message level, one more per segment group */
              depth: number;
              /** @description Innermost segment group ("SG2"); "?" where the message structure has no place for the segment */
              group: string | null;
              /** @description The segment as written, terminator included */
              text: string;
              findings: {
                /** @enum {string} */
                level: "interchange" | "message" | "application";
                /** @description ISO 9735 syntax error code (0085) of an interchange or message finding; the APERAK error code (ERC) of an application finding */
                code: string;
                /** @description What is wrong, in plain words */
                message: string;
                /** @description UNH 0062 of the message concerned */
                messageReference: string | null;
                /** @description Tag of the segment concerned */
                segment: string | null;
                /** @description 1-based position of that segment in the interchange (UNA not counted) */
                position: number | null;
                /** @description Element position ("2", or "2:1" for a component); null for a whole segment */
                element: string | null;
              }[];
            }[];
            /** @description Findings tied to no segment */
            findings: {
              /** @enum {string} */
              level: "interchange" | "message" | "application";
              /** @description ISO 9735 syntax error code (0085) of an interchange or message finding; the APERAK error code (ERC) of an application finding */
              code: string;
              /** @description What is wrong, in plain words */
              message: string;
              /** @description UNH 0062 of the message concerned */
              messageReference: string | null;
              /** @description Tag of the segment concerned */
              segment: string | null;
              /** @description 1-based position of that segment in the interchange (UNA not counted) */
              position: number | null;
              /** @description Element position ("2", or "2:1" for a component); null for a whole segment */
              element: string | null;
            }[];
            notes: string[];
          };
        };
      };
    };
  };
  listDeliveries: {
    parameters: {
      query?: {
        /** @description Only this connection's */
        connectionId?: string;
        /** @description Only these statuses: one of ready, claimed, acknowledged, failed, or several separated by commas */
        status?: string;
        /** @description Only those created at or after this time (RFC 3339) */
        from?: string;
        /** @description Only those created before this time (RFC 3339; exclusive) */
        to?: string;
        limit?: number;
        /** @description The previous page's `meta.nextCursor`, with the same filters and order */
        cursor?: string;
        /** @description `asc` (oldest first, the default) or `desc` (newest first); a cursor keeps its order */
        order?: "asc" | "desc";
        /** @description Only what this upload produced */
        uploadId?: string;
        /** @description Only messages of this type */
        messageType?: "CONTRL" | "APERAK" | "ORDRSP";
        /** @description Only the deliveries of this partner's connections */
        partnerId?: string;
        /** @description `true`: only the overdue deliveries (still ready or claimed after their connection's collection deadline) */
        overdue?: "true";
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            items: {
              /** Format: uuid */
              id: string;
              /** Format: uuid */
              deliveryAttemptId: string;
              /** Format: uuid */
              connectionId: string;
              /** Format: uuid */
              partnerId: string;
              /** @description The partner's name */
              partnerName: string;
              /** @description The connection's name */
              connectionName: string;
              /** Format: uuid */
              uploadId: string;
              interchangeId: string;
              inboundInterchangeId: string | null;
              messageReference: string;
              messageType: string;
              payloadSize: number;
              payloadSha256: string;
              /** @enum {string} */
              status: "ready" | "claimed" | "acknowledged" | "failed";
              attempts: number;
              /**
               * Format: date-time
               * @description RFC 3339 UTC with milliseconds
               */
              dueAt: string;
              leaseExpiresAt: string | null;
              receiptId: string | null;
              acknowledgedAt: string | null;
              /**
               * Format: date-time
               * @description RFC 3339 UTC with milliseconds
               */
              createdAt: string;
              /** @description The delivery this one re-sends (`POST …/{id}/resend`), else null */
              resentFrom: string | null;
              /** @description Still ready or claimed after the connection's collection deadline (`collectionDeadlineSeconds` after `createdAt`) */
              overdue: boolean;
              /** @description When the collection deadline passed without an acknowledgement (set once, by the overdue sweep, which runs every minute); null until then */
              overdueSince: string | null;
            }[];
            meta: {
              hasMore: boolean;
              nextCursor: string | null;
            };
          };
        };
      };
    };
  };
  getDelivery: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            deliveryAttemptId: string;
            /** Format: uuid */
            connectionId: string;
            /** Format: uuid */
            partnerId: string;
            /** @description The partner's name */
            partnerName: string;
            /** @description The connection's name */
            connectionName: string;
            /** Format: uuid */
            uploadId: string;
            interchangeId: string;
            inboundInterchangeId: string | null;
            messageReference: string;
            messageType: string;
            payloadSize: number;
            payloadSha256: string;
            /** @enum {string} */
            status: "ready" | "claimed" | "acknowledged" | "failed";
            attempts: number;
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds
             */
            dueAt: string;
            leaseExpiresAt: string | null;
            receiptId: string | null;
            acknowledgedAt: string | null;
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds
             */
            createdAt: string;
            /** @description The delivery this one re-sends (`POST …/{id}/resend`), else null */
            resentFrom: string | null;
            /** @description Still ready or claimed after the connection's collection deadline (`collectionDeadlineSeconds` after `createdAt`) */
            overdue: boolean;
            /** @description When the collection deadline passed without an acknowledgement (set once, by the overdue sweep, which runs every minute); null until then */
            overdueSince: string | null;
          };
        };
      };
    };
  };
  getDeliveryContent: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The EDIFACT bytes exactly as stored, with Content-Length */
      200: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          "Cache-Control"?: "no-store";
          [name: string]: unknown;
        };
        content: {
          "application/edifact": string;
        };
      };
    };
  };
  getDeliverySegments: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            segments: {
              /** @description 1-based position in the interchange (UNA not counted) */
              position: number;
              tag: string;
              /** @description 0 interchange envelope, 1 group envelope, 2 message level, one more per segment group */
              depth: number;
              /** @description Innermost segment group ("SG2"); "?" where the message structure has no place for the segment */
              group: string | null;
              /** @description The segment as written, terminator included */
              text: string;
              findings: {
                /** @enum {string} */
                level: "interchange" | "message" | "application";
                /** @description ISO 9735 syntax error code (0085) of an interchange or message finding; the APERAK error code (ERC) of an application finding */
                code: string;
                /** @description What is wrong, in plain words */
                message: string;
                /** @description UNH 0062 of the message concerned */
                messageReference: string | null;
                /** @description Tag of the segment concerned */
                segment: string | null;
                /** @description 1-based position of that segment in the interchange (UNA not counted) */
                position: number | null;
                /** @description Element position ("2", or "2:1" for a component); null for a whole segment */
                element: string | null;
              }[];
            }[];
            /** @description Findings tied to no segment */
            findings: {
              /** @enum {string} */
              level: "interchange" | "message" | "application";
              /** @description ISO 9735 syntax error code (0085) of an interchange or message finding; the APERAK error code (ERC) of an application finding */
              code: string;
              /** @description What is wrong, in plain words */
              message: string;
              /** @description UNH 0062 of the message concerned */
              messageReference: string | null;
              /** @description Tag of the segment concerned */
              segment: string | null;
              /** @description 1-based position of that segment in the interchange (UNA not counted) */
              position: number | null;
              /** @description Element position ("2", or "2:1" for a component); null for a whole segment */
              element: string | null;
            }[];
            notes: string[];
          };
        };
      };
    };
  };
  requeueDelivery: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            deliveryAttemptId: string;
            /** Format: uuid */
            connectionId: string;
            /** Format: uuid */
            partnerId: string;
            /** @description The partner's name */
            partnerName: string;
            /** @description The connection's name */
            connectionName: string;
            /** Format: uuid */
            uploadId: string;
            interchangeId: string;
            inboundInterchangeId: string | null;
            messageReference: string;
            messageType: string;
            payloadSize: number;
            payloadSha256: string;
            /** @enum {string} */
            status: "ready" | "claimed" | "acknowledged" | "failed";
            attempts: number;
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds
             */
            dueAt: string;
            leaseExpiresAt: string | null;
            receiptId: string | null;
            acknowledgedAt: string | null;
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds
             */
            createdAt: string;
            /** @description The delivery this one re-sends (`POST …/{id}/resend`), else null */
            resentFrom: string | null;
            /** @description Still ready or claimed after the connection's collection deadline (`collectionDeadlineSeconds` after `createdAt`) */
            overdue: boolean;
            /** @description When the collection deadline passed without an acknowledgement (set once, by the overdue sweep, which runs every minute); null until then */
            overdueSince: string | null;
          };
        };
      };
    };
  };
  resendDelivery: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Created */
      201: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            deliveryAttemptId: string;
            /** Format: uuid */
            connectionId: string;
            /** Format: uuid */
            partnerId: string;
            /** @description The partner's name */
            partnerName: string;
            /** @description The connection's name */
            connectionName: string;
            /** Format: uuid */
            uploadId: string;
            interchangeId: string;
            inboundInterchangeId: string | null;
            messageReference: string;
            messageType: string;
            payloadSize: number;
            payloadSha256: string;
            /** @enum {string} */
            status: "ready" | "claimed" | "acknowledged" | "failed";
            attempts: number;
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds
             */
            dueAt: string;
            leaseExpiresAt: string | null;
            receiptId: string | null;
            acknowledgedAt: string | null;
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds
             */
            createdAt: string;
            /** @description The delivery this one re-sends (`POST …/{id}/resend`), else null */
            resentFrom: string | null;
            /** @description Still ready or claimed after the connection's collection deadline (`collectionDeadlineSeconds` after `createdAt`) */
            overdue: boolean;
            /** @description When the collection deadline passed without an acknowledgement (set once, by the overdue sweep, which runs every minute); null until then */
            overdueSince: string | null;
          };
        };
      };
    };
  };
  createUpload: {
    parameters: {
      query?: never;
      header: {
        /** @description Bound to (tenant, connection) */
        "idempotency-key": string;
      };
      path: {
        connectionID: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/edifact": string;
        "application/octet-stream": string;
      };
    };
    responses: {
      /** @description Replay: the upload stored under this key (`replay: true`) */
      200: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            /** Format: uuid */
            uploadId: string;
            interchangeId?: string;
            /** @enum {string} */
            status: "received" | "processing" | "processed" | "rejected" | "failed";
            replay: boolean;
          };
        };
      };
      /** @description Accepted: stored, processing follows (`replay: false`) */
      202: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            /** Format: uuid */
            uploadId: string;
            interchangeId?: string;
            /** @enum {string} */
            status: "received" | "processing" | "processed" | "rejected" | "failed";
            replay: boolean;
          };
        };
      };
    };
  };
  listMailbox: {
    parameters: {
      query?: {
        limit?: number;
        cursor?: string;
      };
      header?: never;
      path: {
        connectionID: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            items: {
              /** Format: uuid */
              deliveryAttemptId: string;
              interchangeId: string;
              messageType: string;
              payloadSize: number;
              payloadSha256: string;
              /** @enum {string} */
              status: "ready" | "claimed" | "acknowledged" | "failed";
              /**
               * Format: date-time
               * @description RFC 3339 UTC with milliseconds
               */
              createdAt: string;
              /** Format: uuid */
              uploadId: string;
              inboundInterchangeId: string | null;
              messageReference: string;
            }[];
            meta: {
              hasMore: boolean;
              nextCursor: string | null;
            };
          };
        };
      };
    };
  };
  claimDelivery: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        connectionID: string;
        deliveryAttemptID: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            /** Format: uuid */
            deliveryAttemptId: string;
            claimToken: string;
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds
             */
            expiresAt: string;
            attempt: number;
          };
        };
      };
    };
  };
  readDeliveryPayload: {
    parameters: {
      query?: never;
      header?: {
        "x-b2b-claim-token"?: string;
      };
      path: {
        connectionID: string;
        deliveryAttemptID: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description EDIFACT bytes */
      200: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          /** @description Expected byte count */
          "X-B2B-Payload-Size"?: number;
          /** @description Expected SHA-256, hexadecimal */
          "X-B2B-Payload-SHA256"?: string;
          /** @description RFC 9530 `sha-256=:<base64>:` */
          "Repr-Digest"?: string;
          "Cache-Control"?: "no-store";
          /** @description Announces the trailer field `X-B2B-Payload-Integrity` after the body: `verified` when the bytes sent match X-B2B-Payload-SHA256, `failed` otherwise (discard what was read and claim again) */
          Trailer?: "X-B2B-Payload-Integrity";
          [name: string]: unknown;
        };
        content: {
          "application/edifact": string;
        };
      };
    };
  };
  acknowledgeDelivery: {
    parameters: {
      query?: never;
      header?: {
        "x-b2b-claim-token"?: string;
      };
      path: {
        connectionID: string;
        deliveryAttemptID: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          /** @description The request's correlation id (echoed when well-formed, else generated); also in problem bodies */
          "X-Correlation-ID"?: string;
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            /** Format: uuid */
            deliveryAttemptId: string;
            /** Format: uuid */
            receiptId: string;
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds
             */
            acknowledgedAt: string;
            replay: boolean;
          };
        };
      };
    };
  };
}
