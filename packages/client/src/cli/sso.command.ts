import { Option, type Command } from "commander";
import type { SsoAutoCreate, SsoSettings, UserRole } from "../sdk/users.js";
import { canPrompt, promptSecret, readSecret } from "./cli-io.js";
import { jsonOption, renderFields } from "./collection.js";
import { CliError, type Runtime } from "./runtime.js";
import { userRoles } from "./users.command.js";

const renderSettings = (s: SsoSettings) =>
  renderFields([
    ["Issuer", s.issuer],
    ["Client id", s.clientId],
    ["Client secret", "(set; never shown)"],
    [
      "Auto-create",
      s.autoCreate === null ? "off" : `${s.autoCreate.role} for ${s.autoCreate.emailDomains.join(", ")}`,
    ],
    ["Updated", s.updatedAt],
  ]);

interface SetOptions {
  issuer: string;
  clientId: string;
  clientSecretStdin?: boolean;
  autoCreateRole?: UserRole;
  autoCreateDomain?: string[];
  /** false with --no-auto-create. */
  autoCreate: boolean;
  json?: boolean;
}

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

/**
 * `hanse sso show|set|remove`: the tenant's single sign-on setting (published `admin.sso`). The
 * client secret is read like a password (stdin, HANSE_SSO_CLIENT_SECRET or the terminal without
 * echo), never from the command line, and never printed.
 */
export function registerSsoCommands(program: Command, rt: Runtime): void {
  const sso = rt
    .command(program, "sso")
    .description("The tenant's single sign-on with OpenID Connect (admin.sso)");

  jsonOption(rt.command(sso, "show"))
    .description("Show the tenant's single sign-on setting, never its client secret (users:read)")
    .action(
      rt.action(async (options: { json?: boolean }) => {
        const settings = await (await rt.client()).sso.get();
        rt.emit(options.json, settings, () => renderSettings(settings));
      }),
    );

  jsonOption(rt.command(sso, "set"))
    .description(
      "Set up or replace the tenant's single sign-on (users:write); the issuer's discovery document is read now",
    )
    .requiredOption("--issuer <url>", "the issuer, as its discovery document names it (HTTPS)")
    .requiredOption("--client-id <id>", "the client registered for Hanse at the identity provider")
    .option(
      "--client-secret-stdin",
      "read the client secret from stdin (else HANSE_SSO_CLIENT_SECRET, else typed at the terminal)",
    )
    .addOption(
      new Option("--auto-create-role <role>", "create unknown users of the domains with this role").choices(
        userRoles,
      ),
    )
    .option(
      "--auto-create-domain <domain>",
      "an e-mail domain whose users are created on their first sign-in (repeatable)",
      collect,
    )
    .option("--no-auto-create", "only existing, active users sign in")
    .action(
      rt.action(async (options: SetOptions) => {
        const autoCreate = autoCreateOf(options);
        const clientSecret = await readClientSecret(rt, options.clientSecretStdin ?? false);
        const settings = await (
          await rt.client()
        ).sso.set({ issuer: options.issuer, clientId: options.clientId, clientSecret, autoCreate });
        rt.emit(options.json, settings, () => ["single sign-on saved", renderSettings(settings)].join("\n"));
      }),
    );

  jsonOption(rt.command(sso, "remove"))
    .description("Turn the tenant's single sign-on off (users:write); open sessions stay")
    .action(
      rt.action(async (options: { json?: boolean }) => {
        await (await rt.client()).sso.remove();
        rt.emit(options.json, { removed: true }, () => "single sign-on removed");
      }),
    );
}

/** --auto-create-role with one or more --auto-create-domain, or --no-auto-create: one of the two, said. */
function autoCreateOf(options: SetOptions): SsoAutoCreate | null {
  const role = options.autoCreateRole;
  const domains = options.autoCreateDomain ?? [];
  if (!options.autoCreate) {
    if (role !== undefined || domains.length > 0) {
      throw new CliError("--no-auto-create cannot go with --auto-create-role or --auto-create-domain");
    }
    return null;
  }
  if (role === undefined && domains.length === 0) {
    throw new CliError(
      "say whether users are created on their first sign-in: --auto-create-role <role> with " +
        "--auto-create-domain <domain> (repeatable), or --no-auto-create",
    );
  }
  if (role === undefined) throw new CliError("--auto-create-domain needs --auto-create-role");
  if (domains.length === 0) throw new CliError("--auto-create-role needs at least one --auto-create-domain");
  return { role, emailDomains: domains };
}

async function readClientSecret(rt: Runtime, fromStdin: boolean): Promise<string> {
  const stdin = rt.io.stdin ?? process.stdin;
  const secret = fromStdin
    ? await readSecret(stdin)
    : (rt.io.env.HANSE_SSO_CLIENT_SECRET ??
      (canPrompt(stdin) ? await promptSecret(stdin, rt.io.stderr, "Client secret: ") : undefined));
  if (secret === undefined || secret === "") {
    throw new CliError(
      "no client secret: pipe it with --client-secret-stdin, set HANSE_SSO_CLIENT_SECRET, or type it at a terminal",
    );
  }
  return secret;
}
