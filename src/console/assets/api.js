// The console's only way to the server: its own session routes and the bridge to /api/v1.
// Credentials never appear in a URL: the session is an HttpOnly cookie, the CSRF token a header.

let csrfToken = null;

export class ApiError extends Error {
  constructor(status, problem, correlationId) {
    super(problem?.detail ?? `HTTP ${status}`);
    this.status = status;
    this.problem = problem;
    this.correlationId = problem?.correlationId ?? correlationId;
  }
}

async function call(method, url, body, extraHeaders = {}) {
  const headers = { accept: "application/json", ...extraHeaders };
  if (body !== undefined) headers["content-type"] = "application/json";
  if (method !== "GET" && csrfToken) headers["x-console-csrf"] = csrfToken;
  const response = await fetch(url, {
    method,
    headers,
    credentials: "same-origin",
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = null;
  }
  if (!response.ok) throw new ApiError(response.status, data, response.headers.get("x-correlation-id"));
  return data;
}

const queryString = (query = {}) => {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query))
    if (value !== undefined && value !== "") params.set(name, value);
  const text = params.toString();
  return text ? `?${text}` : "";
};

/** `path` is the API path without `/api/v1`, e.g. `/admin/partners`. */
export const api = {
  get: (path, query) => call("GET", `/console/api${path}${queryString(query)}`),
  post: (path, body, headers) => call("POST", `/console/api${path}`, body, headers),
  put: (path, body) => call("PUT", `/console/api${path}`, body),
  patch: (path, body) => call("PATCH", `/console/api${path}`, body),
  delete: (path) => call("DELETE", `/console/api${path}`),
};

/**
 * Saves an API answer's bytes (e.g. a stored interchange) as a file named `name`: read through the
 * bridge with the session cookie, handed to the browser as a Blob (no credential in a URL).
 */
export async function downloadFile(path, name) {
  const response = await fetch(`/console/api${path}`, { credentials: "same-origin" });
  if (!response.ok) {
    const problem = await response.json().catch(() => null);
    throw new ApiError(response.status, problem, response.headers.get("x-correlation-id"));
  }
  const url = window.URL.createObjectURL(await response.blob());
  const anchor = Object.assign(document.createElement("a"), { href: url, download: name });
  document.body.append(anchor);
  anchor.click();
  anchor.remove();
  setTimeout(() => window.URL.revokeObjectURL(url), 0);
}

export async function currentSession() {
  const session = await call("GET", "/console/session");
  csrfToken = session.csrfToken;
  return session;
}

export async function signIn(tenant, email, password) {
  const session = await call("POST", "/console/session", { tenant, email, password });
  csrfToken = session.csrfToken;
}

/** For credentials without a password (the bootstrap administrator's access token). */
export async function signInWithToken(accessToken) {
  const session = await call("POST", "/console/session", { accessToken });
  csrfToken = session.csrfToken;
}

/**
 * Accepts an invitation with the new user's password: the console's own route answers with the
 * session in the cookie, as a sign-in does (the session token never reaches the page).
 */
export async function acceptInvitation(token, password) {
  const session = await call("POST", "/console/invitations", { token, password });
  csrfToken = session.csrfToken;
}

/** Sets a new password with a password reset (no session: the user signs in afterwards). */
export const usePasswordReset = (token, password) =>
  call("POST", "/api/v1/auth/password-resets", { token, password });

/**
 * Single sign-on: asks whether the tenant has it (the API answers a redirect, not followed here),
 * then sends the browser to the identity provider; it comes back signed in to `returnTo`.
 */
export async function signInWithSso(tenant, returnTo = "/console/") {
  const url = `/api/v1/auth/sso/${encodeURIComponent(tenant)}?returnTo=${encodeURIComponent(returnTo)}`;
  const probe = await fetch(url, { redirect: "manual", credentials: "same-origin" });
  if (probe.type !== "opaqueredirect") {
    const problem = await probe.json().catch(() => null);
    throw new ApiError(probe.status, problem, probe.headers.get("x-correlation-id"));
  }
  location.assign(url);
  // The page is left; nothing follows.
  await new Promise(() => {});
}

export async function signOut() {
  await call("DELETE", "/console/session");
  csrfToken = null;
}

/**
 * An idempotency key made in the browser for one intended change: a random UUID. Browsers offer
 * `crypto.randomUUID` only to secure contexts (HTTPS, localhost); over plain HTTP the same UUID is
 * made from `crypto.getRandomValues`.
 */
export const newIdempotencyKey = () => `console-${crypto.randomUUID?.() ?? randomUuid()}`;

function randomUuid() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6] & 0x0f) | 0x40;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
