import { createHash, randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from "jose";

/**
 * A TEST DOUBLE OF THE IDENTITY PROVIDER (not of Hanse): a minimal OpenID Connect issuer over
 * plain HTTP on 127.0.0.1, for the single sign-on tests until `oidc-provider` (the certified
 * reference implementation) is a dev dependency. It serves a discovery document, its key set,
 * an authorization endpoint that signs in whoever `signIn` names at once (no login page), a
 * userinfo endpoint, and a token endpoint that checks the client's Basic credentials, the redirect URI and the PKCE
 * verifier like a real issuer, then returns an RS256 ID token. `tamper` makes the next ID token
 * wrong in one way, for the refusal tests.
 */
export interface IdTokenTampering {
  /** Claims put over the right ones (`aud`, `nonce`, `email_verified`, `exp`, `iss`, …). */
  claims?: Record<string, unknown>;
  /** Signed with a key that is not in the key set. */
  foreignKey?: boolean;
}

export interface TestIssuer {
  /** The issuer identifier (also the base of its endpoints). */
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Who the authorization endpoint signs in next. */
  signIn: { email: string; emailVerified?: boolean; name?: string };
  /** How the next ID token is made wrong; reset after each token. */
  tamper: IdTokenTampering | undefined;
  /** The query of every authorization request received. */
  authorizations: URLSearchParams[];
  /** Every ID token issued (a test checks none reaches a log line). */
  idTokens: string[];
  /** Token requests refused, with why (a test shows it when a flow fails). */
  tokenRefusals: string[];
  /** A code may be redeemed again (a careless issuer): Hanse's own single use of the state is then what refuses. */
  codesReusable: boolean;
  /** Overrides of the discovery document's fields (`issuer` to name another). */
  discovery: Record<string, unknown>;
  /** Claims put over the right ones in the userinfo answers (`sub`, `email`, …). */
  userinfo: Record<string, unknown>;
  close(): Promise<void>;
}

interface IssuedCode {
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  nonce: string;
  signIn: TestIssuer["signIn"];
}

const readBody = async (request: IncomingMessage): Promise<string> => {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
};

/** Why a token request is refused (RFC 6749 §5.2 invalid_grant, invalid_client), or undefined. */
function refusalOf(
  issued: IssuedCode | undefined,
  sent: {
    authorization: string | undefined;
    basic: string;
    redirectUri: string | null;
    challenge: string;
    grantType: string | null;
  },
): string | undefined {
  if (!issued) return "unknown or used code";
  if (sent.authorization !== sent.basic) return "wrong client credentials";
  if (issued.redirectUri !== sent.redirectUri) return "wrong redirect_uri";
  if (issued.codeChallenge !== sent.challenge) return "wrong code_verifier";
  if (sent.grantType !== "authorization_code") return "wrong grant_type";
  return undefined;
}

export async function startTestIssuer(options: { now?: () => Date } = {}): Promise<TestIssuer> {
  const now = options.now ?? (() => new Date());
  const keys = await generateKeyPair("RS256");
  const foreign = await generateKeyPair("RS256");
  const jwk: JWK = { ...(await exportJWK(keys.publicKey)), kid: "test-key", alg: "RS256", use: "sig" };
  const codes = new Map<string, IssuedCode>();
  const accessTokens = new Map<string, TestIssuer["signIn"]>();
  let base = "";

  const sign = async (claims: Record<string, unknown>, key: CryptoKey) =>
    new SignJWT(claims).setProtectedHeader({ alg: "RS256", kid: "test-key" }).sign(key);

  const state: TestIssuer = {
    issuer: "",
    clientId: "hanse-test-client",
    clientSecret: `client-secret-${randomBytes(12).toString("hex")}`,
    signIn: { email: "nobody@example.test" },
    tamper: undefined,
    authorizations: [],
    idTokens: [],
    tokenRefusals: [],
    codesReusable: false,
    discovery: {},
    userinfo: {},
    close: () =>
      new Promise((resolve) => {
        server.close(() => {
          resolve();
        });
      }),
  };

  const json = (response: import("node:http").ServerResponse, status: number, body: unknown) => {
    response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
  };

  const server: Server = createServer((request, response) => {
    void (async () => {
      const url = new URL(request.url ?? "/", base);
      if (url.pathname === "/.well-known/openid-configuration") {
        json(response, 200, {
          issuer: state.issuer,
          authorization_endpoint: `${base}/authorize`,
          token_endpoint: `${base}/token`,
          jwks_uri: `${base}/jwks`,
          userinfo_endpoint: `${base}/userinfo`,
          response_types_supported: ["code"],
          subject_types_supported: ["public"],
          id_token_signing_alg_values_supported: ["RS256"],
          code_challenge_methods_supported: ["S256"],
          token_endpoint_auth_methods_supported: ["client_secret_basic"],
          ...state.discovery,
        });
        return;
      }
      if (url.pathname === "/jwks") {
        json(response, 200, { keys: [jwk] });
        return;
      }
      if (url.pathname === "/userinfo") {
        // Core §5.3: the claims of whom the access token was issued for.
        const signedIn = accessTokens.get((request.headers.authorization ?? "").replace(/^Bearer /, ""));
        if (!signedIn) {
          json(response, 401, { error: "invalid_token" });
          return;
        }
        json(response, 200, {
          sub: `sub-${signedIn.email}`,
          email: signedIn.email,
          email_verified: signedIn.emailVerified ?? true,
          ...state.userinfo,
        });
        return;
      }
      if (url.pathname === "/authorize") {
        state.authorizations.push(url.searchParams);
        const code = randomBytes(16).toString("base64url");
        codes.set(code, {
          clientId: url.searchParams.get("client_id") ?? "",
          redirectUri: url.searchParams.get("redirect_uri") ?? "",
          codeChallenge: url.searchParams.get("code_challenge") ?? "",
          nonce: url.searchParams.get("nonce") ?? "",
          signIn: { ...state.signIn },
        });
        const back = new URL(url.searchParams.get("redirect_uri") ?? "");
        back.searchParams.set("code", code);
        back.searchParams.set("state", url.searchParams.get("state") ?? "");
        back.searchParams.set("iss", state.issuer);
        response.writeHead(302, { location: back.toString() }).end();
        return;
      }
      if (url.pathname === "/token" && request.method === "POST") {
        const form = new URLSearchParams(await readBody(request));
        const issued = codes.get(form.get("code") ?? "");
        if (!state.codesReusable) codes.delete(form.get("code") ?? "");
        const basic = Buffer.from(
          `${encodeURIComponent(state.clientId)}:${encodeURIComponent(state.clientSecret)}`,
        ).toString("base64");
        const verifier = form.get("code_verifier") ?? "";
        const challenge = createHash("sha256").update(verifier).digest("base64url");
        const refusal = refusalOf(issued, {
          authorization: request.headers.authorization,
          basic: `Basic ${basic}`,
          redirectUri: form.get("redirect_uri"),
          challenge,
          grantType: form.get("grant_type"),
        });
        if (refusal !== undefined || !issued) {
          state.tokenRefusals.push(refusal ?? "");
          json(response, 400, { error: "invalid_grant" });
          return;
        }
        const at = Math.floor(now().getTime() / 1000);
        const tamper = state.tamper;
        state.tamper = undefined;
        const idToken = await sign(
          {
            iss: state.issuer,
            sub: `sub-${issued.signIn.email}`,
            aud: issued.clientId,
            iat: at,
            exp: at + 300,
            nonce: issued.nonce,
            email: issued.signIn.email,
            email_verified: issued.signIn.emailVerified ?? true,
            ...(issued.signIn.name ? { name: issued.signIn.name } : {}),
            ...tamper?.claims,
          },
          tamper?.foreignKey ? foreign.privateKey : keys.privateKey,
        );
        state.idTokens.push(idToken);
        const accessToken = randomBytes(16).toString("hex");
        accessTokens.set(accessToken, issued.signIn);
        json(response, 200, {
          access_token: accessToken,
          token_type: "Bearer",
          expires_in: 300,
          id_token: idToken,
        });
        return;
      }
      json(response, 404, { error: "not_found" });
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
  state.issuer = base;
  return state;
}
