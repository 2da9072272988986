// What the signed-in credential may do, from GET /api/v1/profile/entrypoints and whoami.

/** entrypoint id → set of action ids */
let allowed = new Map();

export function setEntrypoints(entrypoints) {
  allowed = new Map(entrypoints.map((e) => [e.id, new Set(e.actions.map((a) => a.id))]));
}

export const can = (entrypoint, action) => allowed.get(entrypoint)?.has(action) ?? false;

let tenant = null;

/** The signed-in credential's tenant (`whoami`), for routes that name it in `X-Tenant-ID`. */
export const setTenant = (value) => {
  tenant = value;
};
export const tenantId = () => tenant?.id ?? null;

let principal = null;
let scopes = new Set();

/** Who is signed in (`whoami`): its principal (kind, role) and scopes, for routes without an entrypoint. */
export const setWhoami = (whoami) => {
  principal = whoami.principal;
  scopes = new Set(whoami.scopes);
};
export const hasScope = (scope) => scopes.has(scope);
/** A user's session (not an access token): it has a password and sessions of its own. */
export const isUser = () => principal?.kind === "user";
