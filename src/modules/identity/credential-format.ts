import { randomSecret, sha256, uuidFromDigest } from "../../platform/crypto/index.js";

/**
 * Bearer formats. Prefixes make leaked secrets findable by secret scanners; the id inside lets
 * the server look a credential up by primary key and compare only the hash.
 *   session        hanse_st_<32 hex id>_<43 base64url secret>
 *   access token   hanse_at_<32 hex id>_<43 base64url secret>
 *   partner key    <apiKeyId uuid>:hanse_pk_<43 base64url secret>
 *   invitation     hanse_it_<32 hex id>_<43 base64url secret> (not a bearer: accepted once for a session)
 *   password reset hanse_rt_<32 hex id>_<43 base64url secret> (not a bearer: used once for a new password)
 *   SSO state      hanse_ss_<32 hex id>_<43 base64url secret> (not a bearer: one single sign-on's `state`)
 * A bootstrap token chosen by the operator has no id inside; its id is derived from its hash.
 */
const prefixed = /^hanse_(st|at)_([0-9a-f]{32})_([A-Za-z0-9_-]{43})$/;
const partnerKey =
  /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}):(hanse_pk_[A-Za-z0-9_-]{43})$/;

const hexToUuid = (hex: string) =>
  `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
const uuidToHex = (id: string) => id.replaceAll("-", "");

export interface ParsedBearer {
  id: string;
  /** What is hashed and compared: the whole token (or the partner key's secret part). */
  secret: string;
  kind: "session" | "access_token" | "api_key" | "unknown";
}

export function parseBearer(token: string): ParsedBearer {
  const match = prefixed.exec(token);
  if (match?.[1] && match[2]) {
    return { id: hexToUuid(match[2]), secret: token, kind: match[1] === "st" ? "session" : "access_token" };
  }
  const key = partnerKey.exec(token);
  if (key?.[1] && key[2]) return { id: key[1], secret: key[2], kind: "api_key" };
  return { id: derivedCredentialId(token), secret: token, kind: "unknown" };
}

export const derivedCredentialId = (token: string): string =>
  uuidFromDigest(sha256(`hanse-credential-id\n${token}`));

/** The unversioned id releases before 2026-11-22 derived (re-keyed at start, see bootstrap). */
export const legacyDerivedCredentialId = (token: string): string =>
  uuidFromDigest(sha256(`hanse-credential-id\n${token}`), { versioned: false });

export function newSessionToken(id: string): string {
  return `hanse_st_${uuidToHex(id)}_${randomSecret()}`;
}

export function newAccessToken(id: string): string {
  return `hanse_at_${uuidToHex(id)}_${randomSecret()}`;
}

/** Tokens used once, not bearers: invitations (`it`), password resets (`rt`), SSO states (`ss`). */
const oneUse = /^hanse_(it|rt|ss)_([0-9a-f]{32})_[A-Za-z0-9_-]{43}$/;

/** The id a one-use token of `kind` names; undefined for anything else. */
function oneUseIdOf(kind: "it" | "rt" | "ss", token: string): string | undefined {
  const match = oneUse.exec(token);
  return match?.[1] === kind && match[2] ? hexToUuid(match[2]) : undefined;
}

export function newInvitationToken(id: string): string {
  return `hanse_it_${uuidToHex(id)}_${randomSecret()}`;
}

/** The invitation id an invitation token names; undefined for anything else. */
export const invitationIdOf = (token: string): string | undefined => oneUseIdOf("it", token);

export function newPasswordResetToken(id: string): string {
  return `hanse_rt_${uuidToHex(id)}_${randomSecret()}`;
}

/** The password reset id a reset token names; undefined for anything else. */
export const passwordResetIdOf = (token: string): string | undefined => oneUseIdOf("rt", token);

export function newSsoState(id: string): string {
  return `hanse_ss_${uuidToHex(id)}_${randomSecret()}`;
}

/** The sign-in an SSO state names; undefined for anything else. */
export const ssoStateIdOf = (token: string): string | undefined => oneUseIdOf("ss", token);

/** Returns the secret part; the full bearer token is `<apiKeyId>:<secret>`. */
export function newPartnerKeySecret(): string {
  return `hanse_pk_${randomSecret()}`;
}

export const hashSecret = (secret: string): Buffer => sha256(secret);
