import { createHash, randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair } from "jose";
import Provider, { type Account, type Configuration } from "oidc-provider";

/**
 * A REAL OPENID PROVIDER for the single sign-on tests: `oidc-provider` (panva's certified
 * reference implementation of OpenID Connect), in-process over plain HTTP on 127.0.0.1 at a free
 * port (hence HANSE_SSO_ALLOW_INSECURE=1 in the tests). Hanse is registered as a confidential
 * client (`client_secret_basic`, PKCE required, its redirect URI only); a second client,
 * `another-app`, exists so a test can obtain a genuine ID token for another audience. People sign
 * in through the provider's own login and consent pages (its `devInteractions`: any password,
 * the login names the account); `signInAt` fills them in over HTTP, a Chromium test clicks them.
 *
 * A real provider does not misbehave by itself. `substituteNextIdToken` makes its token endpoint
 * answer the next code redemption with another genuine ID token of the same provider (one issued
 * to another client, or one of an earlier sign-in): the token substitution and replay attacks an
 * ID token's `aud` and `nonce` checks exist for. docs/decisions.md, "Single sign-on".
 */
export interface ProviderAccount {
  email: string;
  emailVerified: boolean;
  name?: string;
}

export interface RealOidcProvider {
  /** The issuer identifier, `http://127.0.0.1:<port>`. */
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The provider's accounts by login (what its login page asks for). */
  accounts: Map<string, ProviderAccount>;
  /** Every ID token and access token the token endpoint gave (a test checks none reaches a log line). */
  idTokens: string[];
  accessTokens: string[];
  /** Every authorization request that reached the provider (its query). */
  authorizations: URLSearchParams[];
  /** The next token response carries this ID token instead of the one the provider made. */
  substituteNextIdToken: string | undefined;
  /** Adds an account whose login is its e-mail address; returns the login. */
  addAccount(account: ProviderAccount): string;
  /**
   * A genuine ID token of `another-app` (another audience) for `login`, with `nonce`: the
   * authorization code flow with PKCE run to its end for that client, over HTTP.
   */
  idTokenOfAnotherClient(login: string, nonce: string): Promise<string>;
  close(): Promise<void>;
}

const anotherApp = {
  clientId: "another-app",
  clientSecret: `another-secret-${randomBytes(12).toString("hex")}`,
  redirectUri: "http://127.0.0.1/another-app/callback",
};

/** Cookies by name (paths and expiry aside: each sign-in has its own jar, for a few seconds). */
class CookieJar {
  private readonly cookies = new Map<string, string>();
  store(headers: Headers) {
    for (const line of headers.getSetCookie()) {
      const [pair = ""] = line.split(";");
      const at = pair.indexOf("=");
      const name = pair.slice(0, at).trim();
      const value = pair.slice(at + 1).trim();
      if (value === "" || /expires=Thu, 01 Jan 1970/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
  header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join("; ");
  }
}

const decodeHtml = (value: string) => value.replaceAll("&amp;", "&").replaceAll("&#x2F;", "/");

/**
 * A browser without a browser at the provider: follows `authorizationUrl`, signs `login` in on
 * the login page and agrees on the consent page, and returns the first address outside the
 * provider it is sent to (the client's redirect URI with `code`, `state` and `iss`).
 */
export async function signInAt(authorizationUrl: string, login: string): Promise<URL> {
  const provider = new URL(authorizationUrl).origin;
  const jar = new CookieJar();
  let url = new URL(authorizationUrl);
  let form: URLSearchParams | undefined;
  for (let step = 0; step < 12; step++) {
    const answer = await fetch(url, {
      method: form ? "POST" : "GET",
      redirect: "manual",
      headers: {
        cookie: jar.header(),
        ...(form ? { "content-type": "application/x-www-form-urlencoded" } : {}),
      },
      ...(form ? { body: form.toString() } : {}),
    });
    jar.store(answer.headers);
    if (answer.status >= 300 && answer.status < 400) {
      const next = new URL(answer.headers.get("location") ?? "", url);
      if (next.origin !== provider) return next;
      url = next;
      form = undefined;
      continue;
    }
    const page = await answer.text();
    const action = /<form[^>]*action="([^"]+)"/.exec(page)?.[1];
    const prompt = /name="prompt" value="(login|consent)"/.exec(page)?.[1];
    if (answer.status !== 200 || !action || !prompt) {
      throw new Error(`the provider answered ${String(answer.status)}: ${page.slice(0, 500)}`);
    }
    url = new URL(decodeHtml(action), url);
    form =
      prompt === "login"
        ? new URLSearchParams({ prompt, login, password: "any password the dev login accepts" })
        : new URLSearchParams({ prompt });
  }
  throw new Error("the provider's sign-in did not end");
}

export async function startOidcProvider(options: {
  redirectUri: string;
  /**
   * oidc-provider's default (true, OpenID Connect Core §5.4): in the code flow the `email` and
   * `profile` claims are given at the userinfo endpoint only, not in the ID token. False (the
   * default here): in the ID token as well, as Entra ID, Okta, Google and Keycloak do.
   */
  conformIdTokenClaims?: boolean;
}): Promise<RealOidcProvider> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
  const { privateKey } = await generateKeyPair("RS256", { extractable: true });
  const signingKey = { ...(await exportJWK(privateKey)), kid: "provider-key", alg: "RS256", use: "sig" };

  const state: RealOidcProvider = {
    issuer,
    clientId: "hanse",
    clientSecret: `hanse-secret-${randomBytes(12).toString("hex")}`,
    accounts: new Map(),
    idTokens: [],
    accessTokens: [],
    authorizations: [],
    substituteNextIdToken: undefined,
    addAccount(account) {
      this.accounts.set(account.email, account);
      return account.email;
    },
    async idTokenOfAnotherClient(login, nonce) {
      const verifier = randomBytes(32).toString("base64url");
      const authorize = new URL(`${issuer}/auth`);
      authorize.search = new URLSearchParams({
        response_type: "code",
        client_id: anotherApp.clientId,
        redirect_uri: anotherApp.redirectUri,
        scope: "openid email profile",
        state: randomBytes(16).toString("base64url"),
        nonce,
        code_challenge: createHash("sha256").update(verifier).digest("base64url"),
        code_challenge_method: "S256",
      }).toString();
      const back = await signInAt(authorize.toString(), login);
      const answer = await fetch(`${issuer}/token`, {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          authorization: `Basic ${Buffer.from(`${anotherApp.clientId}:${anotherApp.clientSecret}`).toString("base64")}`,
        },
        body: new URLSearchParams({
          grant_type: "authorization_code",
          code: back.searchParams.get("code") ?? "",
          redirect_uri: anotherApp.redirectUri,
          code_verifier: verifier,
        }).toString(),
      });
      const body = (await answer.json()) as { id_token?: string };
      if (!body.id_token) throw new Error(`another-app got no ID token: ${JSON.stringify(body)}`);
      return body.id_token;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
      });
    },
  };

  const findAccount: Configuration["findAccount"] = (_ctx, id) => {
    const account = state.accounts.get(id);
    if (!account) return undefined;
    const found: Account = {
      accountId: id,
      claims: () => ({
        sub: `subject-${id}`,
        email: account.email,
        email_verified: account.emailVerified,
        ...(account.name ? { name: account.name } : {}),
      }),
    };
    return found;
  };

  const configuration: Configuration = {
    clients: [
      {
        client_id: state.clientId,
        client_secret: state.clientSecret,
        redirect_uris: [options.redirectUri],
        grant_types: ["authorization_code"],
        response_types: ["code"],
        token_endpoint_auth_method: "client_secret_basic",
      },
      {
        client_id: anotherApp.clientId,
        client_secret: anotherApp.clientSecret,
        redirect_uris: [anotherApp.redirectUri],
        grant_types: ["authorization_code"],
        response_types: ["code"],
        token_endpoint_auth_method: "client_secret_basic",
      },
    ],
    // PKCE for every client, confidential ones included (the default asks it of public ones only).
    pkce: { required: () => true },
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name"] },
    conformIdTokenClaims: options.conformIdTokenClaims ?? false,
    findAccount,
    jwks: { keys: [signingKey] },
    cookies: { keys: [randomBytes(32).toString("hex")] },
    // Two minutes: the expired-token test moves Hanse's clock past it (and the minute's tolerance).
    ttl: {
      IdToken: 120,
      AuthorizationCode: 60,
      AccessToken: 120,
      Interaction: 600,
      Session: 600,
      Grant: 600,
    },
    features: { devInteractions: { enabled: true } },
  };
  const provider = new Provider(issuer, configuration);
  // The provider's own warnings (development keys, devInteractions) are expected here.
  provider.on("server_error", (_ctx, error) => {
    console.error("oidc-provider server_error", error);
  });
  provider.use(async (ctx, next) => {
    if (ctx.path === "/auth" && ctx.method === "GET") {
      state.authorizations.push(new URLSearchParams(ctx.querystring));
    }
    await next();
    if (ctx.path !== "/token" || ctx.status !== 200) return;
    const body = ctx.body as { id_token?: string; access_token?: string } | undefined;
    if (body?.access_token) state.accessTokens.push(body.access_token);
    if (!body?.id_token) return;
    state.idTokens.push(body.id_token);
    if (
      state.substituteNextIdToken !== undefined &&
      (ctx.oidc as { client?: { clientId: string } } | undefined)?.client?.clientId === state.clientId
    ) {
      ctx.body = { ...body, id_token: state.substituteNextIdToken };
      state.substituteNextIdToken = undefined;
    }
  });
  const handle = provider.callback();
  server.on("request", (request, response) => {
    void handle(request, response);
  });
  return state;
}
