import { createHash, randomBytes } from "node:crypto";
import { createLocalJWKSet, errors as joseErrors, jwtVerify, type JSONWebKeySet } from "jose";
import type { OutboundClient } from "../../../platform/outbound/index.js";

/**
 * The relying party of OpenID Connect Core 1.0's authorization code flow with PKCE (RFC 7636),
 * on `jose` (ID token signatures and claims) and the outbound client (every call to the issuer
 * goes through its address guard). Only what a confidential web client needs: discovery, the
 * authorization request, the code redemption with client_secret_basic or client_secret_post, and
 * the ID token's validation (Core §3.1.3.7). docs/decisions.md, "Single sign-on".
 */

/** Why an issuer cannot be used or a sign-in failed; the message is safe for a problem's detail. */
export class OidcError extends Error {
  override readonly name = "OidcError";
}

/** What Hanse keeps of an issuer's discovery document. */
export interface IssuerMetadata {
  issuer: string;
  authorizationEndpoint: string;
  tokenEndpoint: string;
  jwksUri: string;
  /** Core §5.3: where the e-mail claims are when the ID token has none (null: the issuer names none). */
  userinfoEndpoint: string | null;
  tokenEndpointAuthMethod: "client_secret_basic" | "client_secret_post";
  signingAlgorithms: string[];
}

const timeoutMs = 10_000;
/** Asymmetric algorithms only: an HMAC-signed ID token would be keyed with the client secret. */
const asymmetric = /^(RS|PS|ES)(256|384|512)$|^EdDSA$|^Ed25519$/;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

async function readJson(
  outbound: OutboundClient,
  url: string,
  init: Parameters<OutboundClient["call"]>[1],
  what: string,
): Promise<Record<string, unknown>> {
  let reply;
  try {
    reply = await outbound.call(url, init, timeoutMs);
  } catch (error) {
    throw new OidcError(`the ${what} could not be read: ${(error as Error).message}`);
  }
  if (reply.status !== 200) throw new OidcError(`the ${what} answered ${String(reply.status)}`);
  try {
    const body: unknown = JSON.parse(reply.body);
    if (isRecord(body)) return body;
  } catch {
    // Not JSON: said below.
  }
  throw new OidcError(`the ${what} is not a JSON object`);
}

/** A JWK Set's shape (RFC 7517 §5); jose checks each key when it imports it. */
const isKeySet = (value: Record<string, unknown>): value is Record<string, unknown> & JSONWebKeySet =>
  Array.isArray(value.keys);

/** The issuer's endpoints, from `<issuer>/.well-known/openid-configuration` (Discovery 1.0 §4). */
export async function discoverIssuer(
  outbound: OutboundClient,
  issuer: string,
  allowHttp: boolean,
): Promise<IssuerMetadata> {
  const url = `${issuer.replace(/\/+$/, "")}/.well-known/openid-configuration`;
  const document = await readJson(
    outbound,
    url,
    { method: "GET", headers: { accept: "application/json" } },
    "discovery document",
  );
  // Discovery §4.3: the document's issuer is the one asked for, exactly.
  if (document.issuer !== issuer) throw new OidcError("the discovery document names another issuer");
  const endpoint = (name: string): string => {
    const value = document[name];
    if (typeof value !== "string") throw new OidcError(`the discovery document has no ${name}`);
    let parsed: URL;
    try {
      parsed = new URL(value);
    } catch {
      throw new OidcError(`the discovery document's ${name} is not a URL`);
    }
    if (parsed.protocol !== "https:" && !(allowHttp && parsed.protocol === "http:")) {
      throw new OidcError(`the discovery document's ${name} is not an https URL`);
    }
    return value;
  };
  const strings = (name: string): string[] | undefined => {
    const value = document[name];
    return Array.isArray(value)
      ? value.filter((item): item is string => typeof item === "string")
      : undefined;
  };
  const responseTypes = strings("response_types_supported");
  if (responseTypes && !responseTypes.includes("code")) {
    throw new OidcError("the issuer does not support the authorization code flow");
  }
  const challengeMethods = strings("code_challenge_methods_supported");
  if (challengeMethods && !challengeMethods.includes("S256")) {
    throw new OidcError("the issuer does not support PKCE with S256");
  }
  // Core §3.1.3.7 step 7: RS256 is the default; only asymmetric algorithms are accepted.
  const algorithms = (strings("id_token_signing_alg_values_supported") ?? ["RS256"]).filter((alg) =>
    asymmetric.test(alg),
  );
  if (algorithms.length === 0) throw new OidcError("the issuer signs ID tokens with no asymmetric algorithm");
  // Discovery §3: client_secret_basic when the issuer names none.
  const authMethods = strings("token_endpoint_auth_methods_supported") ?? ["client_secret_basic"];
  const tokenEndpointAuthMethod = authMethods.includes("client_secret_basic")
    ? "client_secret_basic"
    : authMethods.includes("client_secret_post")
      ? "client_secret_post"
      : undefined;
  if (!tokenEndpointAuthMethod) {
    throw new OidcError("the issuer accepts neither client_secret_basic nor client_secret_post");
  }
  return {
    issuer,
    authorizationEndpoint: endpoint("authorization_endpoint"),
    tokenEndpoint: endpoint("token_endpoint"),
    jwksUri: endpoint("jwks_uri"),
    userinfoEndpoint: document.userinfo_endpoint === undefined ? null : endpoint("userinfo_endpoint"),
    tokenEndpointAuthMethod,
    signingAlgorithms: algorithms,
  };
}

const base64url = (bytes: Buffer) => bytes.toString("base64url");

/** A fresh state secret, nonce and PKCE verifier (RFC 7636 §4.1: 43 characters of 32 random bytes). */
export function newAuthorizationSecrets() {
  const codeVerifier = base64url(randomBytes(32));
  return {
    nonce: base64url(randomBytes(32)),
    codeVerifier,
    codeChallenge: base64url(createHash("sha256").update(codeVerifier).digest()),
  };
}

/** The authorization request (Core §3.1.2.1) the browser is sent to. */
export function authorizationUrl(
  metadata: Pick<IssuerMetadata, "authorizationEndpoint">,
  request: { clientId: string; redirectUri: string; state: string; nonce: string; codeChallenge: string },
): string {
  const url = new URL(metadata.authorizationEndpoint);
  url.searchParams.set("response_type", "code");
  url.searchParams.set("client_id", request.clientId);
  url.searchParams.set("redirect_uri", request.redirectUri);
  url.searchParams.set("scope", "openid email profile");
  url.searchParams.set("state", request.state);
  url.searchParams.set("nonce", request.nonce);
  url.searchParams.set("code_challenge", request.codeChallenge);
  url.searchParams.set("code_challenge_method", "S256");
  return url.toString();
}

/** RFC 6749 §2.3.1: client id and secret form-encoded, then Basic. */
const basicCredentials = (clientId: string, secret: string) =>
  `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(secret)}`).toString("base64")}`;

/** The ID token (and access token, if any) of a redeemed code (Core §3.1.3.1), with the verifier and the client's secret. */
export async function redeemCode(
  outbound: OutboundClient,
  metadata: Pick<IssuerMetadata, "tokenEndpoint" | "tokenEndpointAuthMethod">,
  client: { clientId: string; clientSecret: string; redirectUri: string },
  grant: { code: string; codeVerifier: string },
): Promise<{ idToken: string; accessToken: string | undefined }> {
  const form = new URLSearchParams({
    grant_type: "authorization_code",
    code: grant.code,
    redirect_uri: client.redirectUri,
    code_verifier: grant.codeVerifier,
  });
  const headers: Record<string, string> = {
    "content-type": "application/x-www-form-urlencoded",
    accept: "application/json",
  };
  if (metadata.tokenEndpointAuthMethod === "client_secret_basic") {
    headers.authorization = basicCredentials(client.clientId, client.clientSecret);
  } else {
    form.set("client_id", client.clientId);
    form.set("client_secret", client.clientSecret);
  }
  const answer = await readJson(
    outbound,
    metadata.tokenEndpoint,
    { method: "POST", headers, body: form.toString() },
    "token endpoint",
  );
  if (typeof answer.id_token !== "string") throw new OidcError("the token endpoint returned no ID token");
  return {
    idToken: answer.id_token,
    accessToken: typeof answer.access_token === "string" ? answer.access_token : undefined,
  };
}

/** What Hanse takes from a valid ID token. */
export interface IdTokenIdentity {
  subject: string;
  /** Undefined when the ID token has no `email`: then it is asked of the userinfo endpoint. */
  email: string | undefined;
  emailVerified: boolean;
  name: string | undefined;
}

/**
 * Core §3.1.3.7: the signature under a key of the issuer's JWKS with an algorithm it announced,
 * `iss` the issuer, `aud` holding the client id (and `azp` the client when there are several
 * audiences), `exp` in the future, `iat` present, and `nonce` the one sent. Throws OidcError.
 */
export async function verifyIdToken(
  outbound: OutboundClient,
  metadata: Pick<IssuerMetadata, "issuer" | "jwksUri" | "signingAlgorithms">,
  idToken: string,
  expected: { clientId: string; nonce: string; now: Date },
): Promise<IdTokenIdentity> {
  const jwks = await readJson(
    outbound,
    metadata.jwksUri,
    { method: "GET", headers: { accept: "application/json" } },
    "key set",
  );
  if (!isKeySet(jwks)) throw new OidcError("the key set has no keys");
  let payload;
  try {
    ({ payload } = await jwtVerify(idToken, createLocalJWKSet(jwks), {
      issuer: metadata.issuer,
      audience: expected.clientId,
      algorithms: metadata.signingAlgorithms,
      currentDate: expected.now,
      requiredClaims: ["iss", "sub", "aud", "exp", "iat"],
      // A minute for clocks that differ (the issuer's and this host's).
      clockTolerance: 60,
    }));
  } catch (error) {
    if (error instanceof joseErrors.JOSEError)
      throw new OidcError(`the ID token is not valid (${error.code})`);
    throw error;
  }
  if (Array.isArray(payload.aud) && payload.aud.length > 1 && payload.azp !== expected.clientId) {
    throw new OidcError("the ID token is for several audiences but not authorized for this client");
  }
  if (payload.nonce !== expected.nonce) throw new OidcError("the ID token's nonce is not this sign-in's");
  if (typeof payload.sub !== "string") throw new OidcError("the ID token names no subject");
  return {
    subject: payload.sub,
    email: typeof payload.email === "string" ? payload.email : undefined,
    // Only the boolean true (Core §5.1); anything else, missing included, is unverified.
    emailVerified: payload.email_verified === true,
    name: typeof payload.name === "string" ? payload.name : undefined,
  };
}

/**
 * Core §5.3 and §5.4: a provider that issues an access token in the code flow may give the
 * `email` scope's claims at its userinfo endpoint only (oidc-provider does by default). Asked with
 * the access token; the answer must be for the ID token's subject (§5.3.4), else OidcError.
 */
export async function readUserinfo(
  outbound: OutboundClient,
  metadata: Pick<IssuerMetadata, "userinfoEndpoint">,
  accessToken: string | undefined,
  subject: string,
): Promise<{ email: string; emailVerified: boolean; name: string | undefined }> {
  if (!metadata.userinfoEndpoint || accessToken === undefined) {
    throw new OidcError("the ID token names no e-mail address and there is no userinfo endpoint to ask");
  }
  const claims = await readJson(
    outbound,
    metadata.userinfoEndpoint,
    { method: "GET", headers: { accept: "application/json", authorization: `Bearer ${accessToken}` } },
    "userinfo endpoint",
  );
  if (claims.sub !== subject) throw new OidcError("the userinfo answer is for another subject");
  if (typeof claims.email !== "string")
    throw new OidcError("neither the ID token nor userinfo names an e-mail address");
  return {
    email: claims.email,
    emailVerified: claims.email_verified === true,
    name: typeof claims.name === "string" ? claims.name : undefined,
  };
}
