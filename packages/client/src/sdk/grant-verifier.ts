/**
 * Offline verification of entitlement grants (rules/interface C rule 3, rules/contract §5) on
 * `jose`: signature (EdDSA only), `kid`, `typ`, `iss`, `aud`, the `binding` claim, `exp` and `nbf`,
 * against a JWKS that is cached and refetched on an unknown `kid` at most once per cooldown. An
 * expired grant, or one for another binding, is never accepted. Imports only protocol/ (and jose,
 * undici).
 */
import type { errors as JoseErrors, JWK, JWTPayload } from "jose";
import { loadJose, loadUndici } from "./lazy-modules.js";

/** A public key of the JWKS (Ed25519, as Hanse publishes them). */
export interface Jwk {
  kty: string;
  crv?: string;
  x?: string;
  kid?: string;
  alg?: string;
  use?: string;
}
/** The JWKS document (`jwksUri`). */
export interface Jwks {
  keys: Jwk[];
}

export const grantType = "entitlement-grant+jwt";
/** rules/contract §5: `exp` is at most 900 s after `iat`. */
const maxGrantLifetimeSeconds = 900;

export type GrantRefusal =
  | "malformed"
  | "type"
  | "unknown-kid"
  | "signature"
  | "issuer"
  | "audience"
  | "binding"
  | "expired"
  | "not-yet-valid"
  | "claims"
  | "jwks-unavailable";

/** The grant was not accepted. Carries the reason, never the grant. */
export class GrantVerificationError extends Error {
  override readonly name = "GrantVerificationError";
  constructor(
    readonly reason: GrantRefusal,
    message: string,
  ) {
    super(`grant refused (${reason}): ${message}`);
  }
}

export interface VerifiedGrant {
  actorId: string;
  tenantId: string;
  appId: string;
  bindingId: string;
  audience: string;
  issuer: string;
  capabilities: string[];
  /** The entitlement's sequence when the grant was issued. */
  sequence: number;
  keyId: string;
  grantId: string;
  issuedAt: Date;
  notBefore: Date;
  expiresAt: Date;
}

export interface GrantVerifierOptions {
  /** Discovery's `entitlements.jwksUri`. */
  jwksUri: string;
  /** Discovery's `entitlements.issuer`. */
  issuer: string;
  /** The binding's audience. */
  audience: string;
  /** The binding's id: a grant issued to another binding is refused. */
  bindingId: string;
  /** Reads the JWKS (default: GET jwksUri with undici, 10 s time limit). */
  fetchJwks?: ((uri: string) => Promise<Jwks>) | undefined;
  /** At most one refetch per this long for unknown `kid`s (default 30 s). */
  cooldownMs?: number | undefined;
  /** Keys are read again after this long (default 300 s, the JWKS max-age); the old ones serve while that fails. */
  maxAgeMs?: number | undefined;
  /** Tolerated clock difference for `exp`/`nbf`, in seconds (default 0). */
  clockToleranceSeconds?: number | undefined;
  /** The verifier's clock (default the system clock). */
  now?: (() => Date) | undefined;
}

export interface GrantVerifier {
  /** The verified claims, or GrantVerificationError. */
  verify(grant: string): Promise<VerifiedGrant>;
  /** How often the JWKS was read (diagnostics). */
  readonly jwksFetches: number;
}

async function defaultFetchJwks(uri: string): Promise<Jwks> {
  const { request } = await loadUndici();
  const response = await request(uri, {
    method: "GET",
    headers: { accept: "application/json" },
    signal: AbortSignal.timeout(10_000),
  });
  const text = await response.body.text();
  if (response.statusCode !== 200) throw new Error(`JWKS answered ${response.statusCode}`);
  return JSON.parse(text) as Jwks;
}

const usable = (key: Jwk): boolean =>
  key.kty === "OKP" &&
  key.crv === "Ed25519" &&
  typeof key.x === "string" &&
  typeof key.kid === "string" &&
  (key.alg === undefined || key.alg === "EdDSA") &&
  (key.use === undefined || key.use === "sig");

export function createGrantVerifier(options: GrantVerifierOptions): GrantVerifier {
  const fetchJwks = options.fetchJwks ?? defaultFetchJwks;
  const cooldownMs = options.cooldownMs ?? 30_000;
  const maxAgeMs = options.maxAgeMs ?? 300_000;
  const now = options.now ?? (() => new Date());
  let keys = new Map<string, Jwk>();
  let fetchedAt: number | undefined;
  let fetches = 0;
  let loading: Promise<void> | undefined;

  /** One read at a time; concurrent callers share it. */
  const load = (): Promise<void> => {
    loading ??= (async () => {
      fetches++;
      try {
        const jwks = await fetchJwks(options.jwksUri);
        if (!Array.isArray((jwks as Jwks | undefined)?.keys)) throw new Error("the JWKS has no keys array");
        keys = new Map(jwks.keys.filter(usable).map((key) => [key.kid as string, key]));
      } finally {
        fetchedAt = now().getTime();
        loading = undefined;
      }
    })();
    return loading;
  };

  async function keyFor(kid: string): Promise<Jwk> {
    const at = now().getTime();
    if (fetchedAt === undefined) {
      await load().catch(() => {
        throw new GrantVerificationError("jwks-unavailable", "the JWKS could not be read");
      });
    } else if (at - fetchedAt >= maxAgeMs) {
      // Stale keys keep serving while the JWKS cannot be read; a successful read replaces them.
      await load().catch(() => undefined);
    }
    if (!keys.has(kid) && fetchedAt !== undefined && now().getTime() - fetchedAt >= cooldownMs) {
      await load().catch(() => undefined);
    }
    const key = keys.get(kid);
    if (!key) throw new GrantVerificationError("unknown-kid", "no key of the JWKS has the grant's kid");
    return key;
  }

  return {
    get jwksFetches() {
      return fetches;
    },

    async verify(grant) {
      if (typeof grant !== "string" || !/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(grant)) {
        throw new GrantVerificationError("malformed", "not a compact JWS");
      }
      const { decodeProtectedHeader, errors: joseErrors, jwtVerify } = await loadJose();
      let header;
      try {
        header = decodeProtectedHeader(grant);
      } catch {
        throw new GrantVerificationError("malformed", "the protected header cannot be read");
      }
      if (header.typ !== grantType) {
        throw new GrantVerificationError("type", `the header's typ is not ${grantType}`);
      }
      if (header.alg !== "EdDSA") throw new GrantVerificationError("signature", "the algorithm is not EdDSA");
      if (typeof header.kid !== "string" || header.kid === "") {
        throw new GrantVerificationError("unknown-kid", "the header has no kid");
      }
      const key = await keyFor(header.kid);
      let payload: JWTPayload;
      try {
        ({ payload } = await jwtVerify(grant, key as JWK, {
          algorithms: ["EdDSA"],
          typ: grantType,
          issuer: options.issuer,
          audience: options.audience,
          currentDate: now(),
          clockTolerance: options.clockToleranceSeconds ?? 0,
          requiredClaims: ["sub", "exp", "nbf", "iat", "jti"],
        }));
      } catch (error) {
        throw refusal(error, joseErrors);
      }
      return claims(payload, header.kid, options);
    },
  };
}

function refusal(error: unknown, joseErrors: typeof JoseErrors): GrantVerificationError {
  if (error instanceof joseErrors.JWTExpired)
    return new GrantVerificationError("expired", "the grant expired");
  if (error instanceof joseErrors.JWTClaimValidationFailed) {
    switch (error.claim) {
      case "iss":
        return new GrantVerificationError("issuer", "another issuer");
      case "aud":
        return new GrantVerificationError("audience", "another audience");
      case "nbf":
        return new GrantVerificationError("not-yet-valid", "the grant is not valid yet");
      case "typ":
        return new GrantVerificationError("type", `the header's typ is not ${grantType}`);
      default:
        return new GrantVerificationError("claims", `the ${error.claim} claim is missing or invalid`);
    }
  }
  if (error instanceof joseErrors.JWSSignatureVerificationFailed) {
    return new GrantVerificationError("signature", "the signature does not verify");
  }
  return new GrantVerificationError("malformed", "the grant cannot be verified");
}

function claims(payload: JWTPayload, kid: string, options: GrantVerifierOptions): VerifiedGrant {
  const text = (name: string): string => {
    const value = payload[name];
    if (typeof value !== "string" || value === "") {
      throw new GrantVerificationError("claims", `the ${name} claim is missing`);
    }
    return value;
  };
  // Rule 3: a grant of another binding is never accepted, whatever its audience.
  if (payload.binding !== options.bindingId) {
    throw new GrantVerificationError("binding", "the grant was issued to another service binding");
  }
  const capabilities = payload.capabilities;
  if (!Array.isArray(capabilities) || !capabilities.every((c) => typeof c === "string")) {
    throw new GrantVerificationError("claims", "the capabilities claim is missing");
  }
  const seq = payload.seq;
  if (typeof seq !== "number" || !Number.isInteger(seq)) {
    throw new GrantVerificationError("claims", "the seq claim is missing");
  }
  const iat = payload.iat as number;
  const exp = payload.exp as number;
  if (exp - iat > maxGrantLifetimeSeconds) {
    throw new GrantVerificationError("claims", "the grant lives longer than 900 seconds");
  }
  return {
    actorId: text("sub"),
    tenantId: text("tenant"),
    appId: text("app"),
    bindingId: options.bindingId,
    audience: options.audience,
    issuer: options.issuer,
    capabilities,
    sequence: seq,
    keyId: kid,
    grantId: text("jti"),
    issuedAt: new Date(iat * 1000),
    notBefore: new Date((payload.nbf as number) * 1000),
    expiresAt: new Date(exp * 1000),
  };
}
