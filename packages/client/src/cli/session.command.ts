import type { Command } from "commander";
import { createClient } from "../sdk/client.js";
import type { UserSession } from "../sdk/sessions.js";
import { readSecret } from "./cli-io.js";
import { registerItemAction, registerList } from "./collection.js";
import { credentialsPath, removeCredentials, writeCredentials } from "./credentials.js";
import { CliError, type Runtime } from "./runtime.js";

interface LoginOptions {
  url?: string;
  tenant: string;
  email: string;
  passwordStdin?: boolean;
  json?: boolean;
}

/** `hanse login`, `hanse logout`, `hanse whoami`, `hanse sessions list|end`. */
export function registerSessionCommands(program: Command, rt: Runtime): void {
  rt.command(program, "login")
    .description("Log in with tenant, e-mail and password; stores the session token (mode 0600)")
    .option("--url <url>", "server URL (default: HANSE_URL or the stored URL)")
    .requiredOption("--tenant <slug>", "tenant slug")
    .requiredOption("--email <email>", "e-mail address")
    .option("--password-stdin", "read the password from stdin (else HANSE_PASSWORD)")
    .option("--json", "machine-readable output")
    .action(
      rt.action(async (options: LoginOptions) => {
        const url = options.url ?? rt.io.env.HANSE_URL;
        if (url === undefined || url === "") throw new CliError("give --url or set HANSE_URL");
        const password = options.passwordStdin
          ? await readSecret(rt.io.stdin ?? process.stdin)
          : rt.io.env.HANSE_PASSWORD;
        if (password === undefined || password === "") {
          throw new CliError("no password: pipe it with --password-stdin or set HANSE_PASSWORD");
        }
        let client;
        try {
          client = createClient({ baseUrl: url });
        } catch {
          throw new CliError(`invalid server URL ${url}`);
        }
        const session = await client.login({ tenant: options.tenant, email: options.email, password });
        const path = credentialsPath(rt.io.env);
        await writeCredentials(path, {
          url: client.baseUrl,
          token: session.token,
          tenant: options.tenant,
          expiresAt: session.expiresAt,
        });
        if (options.json) {
          rt.printJson({
            url: client.baseUrl,
            tenant: options.tenant,
            expiresAt: session.expiresAt,
            scopes: session.scopes,
            credentialsFile: path,
          });
          return;
        }
        rt.print(
          [
            `Logged in to ${client.baseUrl} as ${options.email} (tenant ${options.tenant}).`,
            `Session expires ${session.expiresAt}; scopes: ${session.scopes.join(", ") || "none"}.`,
            `Credentials saved to ${path}.`,
          ].join("\n"),
        );
      }),
    );

  rt.command(program, "logout")
    .description("Revoke the session on the server and forget the stored credentials")
    .option("--json", "one JSON document on stdout")
    .action(
      rt.action(async (options: { json?: boolean }) => {
        const path = credentialsPath(rt.io.env);
        let revoked = true;
        try {
          await (await rt.client()).logout();
        } catch {
          // Logging out must still forget the local token when the server cannot be reached.
          revoked = false;
        }
        const removed = await removeCredentials(path);
        rt.emit(options.json, { revoked, credentialsRemoved: removed, credentialsFile: path }, () =>
          [
            ...(revoked ? [] : ["The server did not confirm the logout; the session expires on its own."]),
            removed ? `Removed ${path}.` : `No credentials stored at ${path}.`,
          ].join("\n"),
        );
      }),
    );

  rt.command(program, "whoami")
    .description("Show the principal, tenant and scopes of the current credentials")
    .option("--json", "machine-readable output")
    .action(
      rt.action(async (options: { json?: boolean }) => {
        const client = await rt.client();
        const me = await client.whoami();
        if (options.json) {
          rt.printJson(me);
          return;
        }
        rt.print(
          [
            `Server:    ${client.baseUrl}`,
            `Principal: ${me.principal.name} (${me.principal.kind}, ${me.principal.id})`,
            `Tenant:    ${me.tenant.slug} (${me.tenant.type}, ${me.tenant.id})`,
            `Scopes:    ${me.scopes.join(", ") || "none"}`,
          ].join("\n"),
        );
      }),
    );

  const sessions = rt
    .command(program, "sessions")
    .description("The signed-in user's own sessions (needs a user session, not an access token)");
  registerList<UserSession>(rt, sessions, {
    description: "List your open sessions, oldest first; * marks this one (never a token)",
    empty: "No open sessions.",
    columns: [
      ["ID", (s) => `${s.id}${s.current ? " *" : ""}`],
      ["METHOD", (s) => s.method],
      ["CREATED", (s) => s.createdAt],
      ["LAST USED", (s) => s.lastUsedAt],
      ["EXPIRES", (s) => s.expiresAt],
    ],
    fetch: (client, query) => client.sessions.list(query),
  });
  registerItemAction<{ id: string; ended: true }>(rt, sessions, {
    name: "end",
    description: "End one of your sessions at once (its token is refused from then on)",
    argument: "session-id",
    run: async (client, id) => {
      await client.sessions.end(id);
      return { id, ended: true };
    },
    render: (s) => `ended session ${s.id}`,
  });
}
