import { InvalidArgumentError, type Command } from "commander";
import {
  GrantVerificationError,
  createFeedReader,
  createGrantVerifier,
  createServiceClient,
  type Entitlement,
  type FeedEvent,
  type ServiceClient,
} from "../sdk/entitlements.js";
import { readJsonFile, writeFileAtomic } from "../sdk/local-files.js";
import { readSecret } from "./cli-io.js";
import { parseWhole } from "./options.js";
import { renderColumns } from "./table.js";
import { CliError, type Runtime } from "./runtime.js";

/**
 * The statuses `--status` takes, checked against the API's (the generated types): a status the
 * description adds or drops fails to compile here.
 */
const entitlementStatusSet = { active: true, suspended: true, revoked: true } satisfies Record<
  Entitlement["status"],
  true
>;
const entitlementStatuses = Object.keys(entitlementStatusSet) as Entitlement["status"][];

/** Exit code of `verify-grant` when the grant is refused (0 accepted, 1 usage or API error). */
export const grantRefusedExitCode = 2;

const parseList = (value: string): string[] =>
  value
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item !== "");

const parseTime = (value: string): string => {
  if (Number.isNaN(Date.parse(value))) throw new InvalidArgumentError("an RFC 3339 time");
  return new Date(value).toISOString();
};

const parseValidUntil = (value: string): string | null => (value === "none" ? null : parseTime(value));

function renderEntitlement(e: Entitlement): string {
  return [
    `${e.appId} / ${e.actorId}: ${e.status}, plan ${e.plan}`,
    `  capabilities: ${e.capabilities.join(", ") || "-"}`,
    `  valid: ${e.validFrom} … ${e.validUntil ?? "open"}`,
    `  sequence: ${e.sequence}`,
  ].join("\n");
}

/** `{"lastSequence": N}` of a `changes --state` file, bound to the server it came from. */
interface FeedState {
  server: string;
  lastSequence: number;
  updatedAt: string;
}

async function readState(path: string, server: string): Promise<number | undefined> {
  const state = (await readJsonFile(path, () => new CliError(`the state file ${path} is not valid JSON`))) as
    Partial<FeedState> | undefined;
  if (state === undefined) return undefined;
  if (typeof state.lastSequence !== "number" || !Number.isInteger(state.lastSequence)) {
    throw new CliError(`the state file ${path} has no lastSequence`);
  }
  if (state.server !== server) {
    throw new CliError(`the state file ${path} belongs to ${String(state.server)}, not ${server}`);
  }
  return state.lastSequence;
}

/** Replaces the file atomically: a crash leaves the previous position, never half a file. */
async function writeState(path: string, state: FeedState): Promise<void> {
  await writeFileAtomic(path, `${JSON.stringify(state)}\n`);
}

/**
 * `hanse entitlements …` and `hanse bindings …`: administration with a session or access token
 * (published `admin.*` entries), and the service side with a service credential
 * (HANSE_SERVICE_CREDENTIAL_ID or --credential-id; the secret from HANSE_SERVICE_SECRET or
 * --secret-stdin, never from argv). Exit codes: 0 ok, 1 API or usage error, 2 grant refused.
 */
export function registerEntitlementsCommands(program: Command, rt: Runtime): void {
  const io = rt.io;
  const entitlements = rt
    .command(program, "entitlements")
    .description("App entitlements: administration and the service interface (rules/interface C)");

  // ---- administration (session or access token) ------------------------------------------------

  const apps = rt.command(entitlements, "apps").description("Apps and their capabilities");
  rt.command(apps, "create")
    .description("Create an app")
    .requiredOption("--id <id>", "app id, unique in the tenant")
    .requiredOption("--name <name>", "display name")
    .option("--capabilities <list>", "comma-separated capabilities", parseList, [])
    .option("--json", "machine-readable output")
    .action(
      rt.action(async (options: { id: string; name: string; capabilities: string[]; json?: boolean }) => {
        const client = await rt.client();
        const app = await client.entitlements.createApp({
          id: options.id,
          name: options.name,
          capabilities: options.capabilities,
        });
        if (options.json) rt.printJson(app);
        else
          rt.print(
            `created app ${app.id} (${app.name}): ${app.capabilities.join(", ") || "no capabilities"}`,
          );
      }),
    );
  rt.command(apps, "list")
    .description("List the tenant's apps")
    .option("--limit <n>", "page size, 1–100", parseWhole("--limit", 1, 100))
    .option("--cursor <cursor>", "continue after a previous page")
    .option("--json", "machine-readable output")
    .action(
      rt.action(async (options: { limit?: number; cursor?: string; json?: boolean }) => {
        const client = await rt.client();
        const page = await client.entitlements.listApps({ limit: options.limit, cursor: options.cursor });
        if (options.json) {
          rt.printJson(page);
          return;
        }
        rt.print(
          page.items.length === 0
            ? "No apps."
            : renderColumns([
                ["ID", "CAPABILITIES", "NAME"],
                ...page.items.map((a) => [a.id, a.capabilities.join(",") || "-", a.name]),
              ]),
        );
        if (page.meta.hasMore && page.meta.nextCursor !== null)
          rt.print(`More apps: hanse entitlements apps list --cursor '${page.meta.nextCursor}'`);
      }),
    );
  rt.command(apps, "get")
    .description("Show one app")
    .argument("<app>", "app id")
    .option("--json", "machine-readable output")
    .action(
      rt.action(async (id: string, options: { json?: boolean }) => {
        const app = await (await rt.client()).entitlements.getApp(id);
        if (options.json) rt.printJson(app);
        else rt.print(`${app.id} (${app.name})\n  capabilities: ${app.capabilities.join(", ") || "-"}`);
      }),
    );

  rt.command(entitlements, "set")
    .description("Set an actor's entitlement to an app (a new change of the app's feed)")
    .argument("<app>", "app id")
    .argument("<actor>", "actor id (at most 128 characters)")
    .requiredOption("--status <status>", "active | suspended | revoked")
    .requiredOption("--plan <plan>", "plan name")
    .option("--capabilities <list>", "comma-separated, a subset of the app's", parseList, [])
    .option("--valid-from <time>", "RFC 3339 (default: the earlier value or now)", parseTime)
    .option("--valid-until <time>", "RFC 3339, exclusive; `none` for no end", parseValidUntil)
    .option("--json", "machine-readable output")
    .action(
      rt.action(
        async (
          app: string,
          actor: string,
          options: {
            status: string;
            plan: string;
            capabilities: string[];
            validFrom?: string;
            validUntil?: string | null;
            json?: boolean;
          },
        ) => {
          const status = entitlementStatuses.find((value) => value === options.status);
          if (status === undefined) {
            throw new CliError(`--status is one of ${entitlementStatuses.join(", ")}`);
          }
          const set = await (
            await rt.client()
          ).entitlements.setEntitlement(app, actor, {
            status,
            plan: options.plan,
            capabilities: options.capabilities,
            ...(options.validFrom === undefined ? {} : { validFrom: options.validFrom }),
            ...(options.validUntil === undefined ? {} : { validUntil: options.validUntil }),
          });
          if (options.json) rt.printJson(set);
          else rt.print(renderEntitlement(set));
        },
      ),
    );
  rt.command(entitlements, "get")
    .description("Show an actor's entitlement to an app")
    .argument("<app>", "app id")
    .argument("<actor>", "actor id")
    .option("--json", "machine-readable output")
    .action(
      rt.action(async (app: string, actor: string, options: { json?: boolean }) => {
        const found = await (await rt.client()).entitlements.getEntitlement(app, actor);
        if (options.json) rt.printJson(found);
        else rt.print(renderEntitlement(found));
      }),
    );
  rt.command(entitlements, "list")
    .description("List an app's entitlements in actor order")
    .argument("<app>", "app id")
    .option("--limit <n>", "page size, 1–100", parseWhole("--limit", 1, 100))
    .option("--cursor <cursor>", "continue after a previous page")
    .option("--json", "machine-readable output")
    .action(
      rt.action(async (app: string, options: { limit?: number; cursor?: string; json?: boolean }) => {
        const page = await (
          await rt.client()
        ).entitlements.listEntitlements(app, { limit: options.limit, cursor: options.cursor });
        if (options.json) {
          rt.printJson(page);
          return;
        }
        rt.print(
          page.items.length === 0
            ? "No entitlements."
            : renderColumns([
                ["ACTOR", "STATUS", "PLAN", "SEQ", "VALID UNTIL", "CAPABILITIES"],
                ...page.items.map((e) => [
                  e.actorId,
                  e.status,
                  e.plan,
                  String(e.sequence),
                  e.validUntil ?? "-",
                  e.capabilities.join(",") || "-",
                ]),
              ]),
        );
        if (page.meta.hasMore && page.meta.nextCursor !== null)
          rt.print(`More: hanse entitlements list ${app} --cursor '${page.meta.nextCursor}'`);
      }),
    );

  rt.command(entitlements, "history")
    .description("List an actor's changes to an app, newest first (as long as the change feed keeps them)")
    .argument("<app>", "app id")
    .argument("<actor>", "actor id")
    .option("--limit <n>", "page size, 1–100", parseWhole("--limit", 1, 100))
    .option("--cursor <cursor>", "continue after a previous page")
    .option("--json", "machine-readable output")
    .action(
      rt.action(
        async (app: string, actor: string, options: { limit?: number; cursor?: string; json?: boolean }) => {
          const page = await (
            await rt.client()
          ).entitlements.listEntitlementHistory(app, actor, { limit: options.limit, cursor: options.cursor });
          if (options.json) {
            rt.printJson(page);
            return;
          }
          rt.print(
            page.items.length === 0
              ? "No changes kept."
              : renderColumns([
                  ["SEQ", "OCCURRED", "STATUS", "PLAN", "VALID UNTIL", "CAPABILITIES"],
                  ...page.items.map((c) => [
                    String(c.sequence),
                    c.occurredAt,
                    c.entitlement?.status ?? "-",
                    c.entitlement?.plan ?? "-",
                    c.entitlement?.validUntil ?? "-",
                    c.entitlement?.capabilities.join(",") || "-",
                  ]),
                ]),
          );
          if (page.meta.prunedThrough > 0)
            rt.print(`Changes of ${app} up to sequence ${page.meta.prunedThrough} are no longer kept.`);
          if (page.meta.hasMore && page.meta.nextCursor !== null)
            rt.print(`More: hanse entitlements history ${app} ${actor} --cursor '${page.meta.nextCursor}'`);
        },
      ),
    );

  const bindings = rt
    .command(program, "bindings")
    .description("Service bindings: an app, an audience, required capabilities and a credential");
  const secretNotice = (credentialId: string, secret: string) =>
    [
      `  credential id: ${credentialId}`,
      `  secret:        ${secret}`,
      "",
      "This secret is shown only now and cannot be read again: store it where the service reads it",
      "(e.g. HANSE_SERVICE_SECRET).",
    ].join("\n");
  rt.command(bindings, "create")
    .description("Create a service binding and issue its credential (the secret is printed once)")
    .requiredOption("--app <app>", "app id")
    .requiredOption("--audience <audience>", "the service's audience (the grants' aud)")
    .option("--require <list>", "comma-separated capabilities every decision requires", parseList, [])
    .option("--json", "machine-readable output (includes the secret)")
    .action(
      rt.action(async (options: { app: string; audience: string; require: string[]; json?: boolean }) => {
        const created = await (
          await rt.client()
        ).entitlements.createBinding({
          appId: options.app,
          audience: options.audience,
          requiredCapabilities: options.require,
        });
        if (options.json) {
          rt.printJson(created);
          return;
        }
        rt.print(
          [
            `created binding ${created.id} for app ${created.appId}, audience ${created.audience}`,
            `  required capabilities: ${created.requiredCapabilities.join(", ") || "-"}`,
            secretNotice(created.credentialId, created.secret),
          ].join("\n"),
        );
      }),
    );
  rt.command(bindings, "rotate")
    .description("Issue a new credential; the previous one stays valid for the overlap period")
    .argument("<binding>", "binding id")
    .option("--json", "machine-readable output (includes the secret)")
    .action(
      rt.action(async (id: string, options: { json?: boolean }) => {
        const rotated = await (await rt.client()).entitlements.rotateBinding(id);
        if (options.json) {
          rt.printJson(rotated);
          return;
        }
        rt.print(
          [
            `rotated binding ${rotated.bindingId}`,
            rotated.previousCredentialId === null
              ? "  no previous credential"
              : `  previous credential ${rotated.previousCredentialId} valid until ${rotated.previousValidUntil ?? "-"}`,
            secretNotice(rotated.credentialId, rotated.secret),
          ].join("\n"),
        );
      }),
    );

  rt.command(bindings, "revoke")
    .description(
      "Revoke a binding: every credential of it is refused from now on and its webhook subscriptions stop " +
        "(grants already issued stay valid until they expire)",
    )
    .argument("<binding>", "binding id")
    .option("--json", "machine-readable output")
    .action(
      rt.action(async (id: string, options: { json?: boolean }) => {
        const binding = await (await rt.client()).entitlements.revokeBinding(id);
        if (options.json) rt.printJson(binding);
        else rt.print(`revoked binding ${binding.id} at ${binding.revokedAt ?? "-"}`);
      }),
    );

  // ---- the service interface (service credential) --------------------------------------------

  interface ServiceOptions {
    credentialId?: string;
    secretStdin?: boolean;
  }
  const withCredential = (command: Command) =>
    command
      .option("--credential-id <id>", "service credential id (else HANSE_SERVICE_CREDENTIAL_ID)")
      .option("--secret-stdin", "read the service secret from stdin (else HANSE_SERVICE_SECRET)");

  async function serviceClient(options: ServiceOptions): Promise<ServiceClient> {
    const { baseUrl } = await rt.client({ requireToken: false });
    const credentialId = options.credentialId ?? io.env.HANSE_SERVICE_CREDENTIAL_ID;
    if (credentialId === undefined || credentialId === "") {
      throw new CliError("no service credential: give --credential-id or set HANSE_SERVICE_CREDENTIAL_ID");
    }
    const secret = options.secretStdin
      ? await readSecret(io.stdin ?? process.stdin)
      : io.env.HANSE_SERVICE_SECRET;
    if (secret === undefined || secret === "") {
      throw new CliError("no service secret: pipe it with --secret-stdin or set HANSE_SERVICE_SECRET");
    }
    try {
      return createServiceClient({ baseUrl, credentialId, secret });
    } catch (error) {
      throw new CliError(error instanceof Error ? error.message : "invalid service credential");
    }
  }

  withCredential(rt.command(entitlements, "introspect"))
    .description("One online decision for an actor of the binding's app")
    .argument("<actor>", "actor id")
    .option("--json", "machine-readable output")
    .action(
      rt.action(async (actor: string, options: ServiceOptions & { json?: boolean }) => {
        const answer = await (await serviceClient(options)).introspect(actor);
        if (options.json) {
          rt.printJson(answer);
          return;
        }
        rt.print(
          [
            `${answer.actorId}: ${answer.entitled ? "entitled" : "not entitled"} (app ${answer.appId})`,
            `  status: ${answer.status ?? "unknown"}, plan: ${answer.plan ?? "-"}`,
            `  capabilities: ${answer.capabilities.join(", ") || "-"}`,
            `  valid until: ${answer.validUntil ?? (answer.status === null ? "-" : "open")}`,
            `  sequence: ${answer.sequence ?? "-"}, evaluated at ${answer.evaluatedAt}`,
          ].join("\n"),
        );
      }),
    );

  withCredential(rt.command(entitlements, "grant"))
    .description("Request a short-lived grant for an entitled actor; prints the grant alone on stdout")
    .argument("<actor>", "actor id")
    .option("--json", "machine-readable output")
    .action(
      rt.action(async (actor: string, options: ServiceOptions & { json?: boolean }) => {
        const grant = await (await serviceClient(options)).grant(actor);
        if (options.json) {
          rt.printJson(grant);
          return;
        }
        rt.print(grant.grant);
        io.stderr.write(`grant for ${actor}: key ${grant.keyId}, expires ${grant.expiresAt}\n`);
      }),
    );

  rt.command(entitlements, "verify-grant")
    .description(
      "Verify a grant offline against the JWKS (signature, kid, issuer, audience, binding, expiry)",
    )
    .argument("[grant]", "the grant, or - (the default) to read it from stdin")
    .requiredOption("--audience <audience>", "the binding's audience")
    .requiredOption("--binding <id>", "the binding's id")
    .option("--issuer <url>", "expected issuer (default: discovery's entitlements.issuer)")
    .option("--jwks-uri <url>", "JWKS location (default: discovery's entitlements.jwksUri)")
    .option("--json", "machine-readable output")
    .action(
      rt.action(
        async (
          given: string | undefined,
          options: { audience: string; binding: string; issuer?: string; jwksUri?: string; json?: boolean },
        ) => {
          const grant =
            given === undefined || given === "-"
              ? (await readSecret(io.stdin ?? process.stdin)).trim()
              : given;
          let { issuer, jwksUri } = options;
          if (issuer === undefined || jwksUri === undefined) {
            const discovery = await (await rt.client({ requireToken: false })).discovery();
            if (!discovery.entitlements) {
              throw new CliError(
                "the server's discovery reports no entitlements; give --issuer and --jwks-uri",
              );
            }
            issuer ??= discovery.entitlements.issuer;
            jwksUri ??= discovery.entitlements.jwksUri;
          }
          const verifier = createGrantVerifier({
            jwksUri,
            issuer,
            audience: options.audience,
            bindingId: options.binding,
          });
          try {
            const verified = await verifier.verify(grant);
            if (options.json) {
              rt.printJson({ valid: true, ...verified });
              return;
            }
            rt.print(
              [
                `valid grant for ${verified.actorId} (app ${verified.appId}, tenant ${verified.tenantId})`,
                `  capabilities: ${verified.capabilities.join(", ") || "-"}`,
                `  key ${verified.keyId}, expires ${verified.expiresAt.toISOString()}`,
              ].join("\n"),
            );
          } catch (error) {
            if (!(error instanceof GrantVerificationError)) throw error;
            if (options.json) rt.printJson({ valid: false, reason: error.reason });
            throw new CliError(error.message, grantRefusedExitCode);
          }
        },
      ),
    );

  withCredential(rt.command(entitlements, "changes"))
    .description(
      "Print the binding's app's feed as JSON lines: a snapshot when there is no position, then the " +
        "changes; a new snapshot after 410 (rules/interface C rules 1–2)",
    )
    .option(
      "--after <n>",
      "start after this sequence (instead of the state file or a snapshot)",
      parseWhole("--after", 0, Number.MAX_SAFE_INTEGER),
    )
    .option("--state <file>", "read the position from this file and keep it there after every page")
    .option("--follow", "keep polling for new changes until interrupted")
    .option(
      "--poll-ms <ms>",
      "pause when caught up, with --follow",
      parseWhole("--poll-ms", 100, 3_600_000),
      2000,
    )
    .option("--limit <n>", "page size, 1–1000", parseWhole("--limit", 1, 1000))
    .action(
      rt.action(
        async (
          options: ServiceOptions & {
            after?: number;
            state?: string;
            follow?: boolean;
            pollMs: number;
            limit?: number;
          },
        ) => {
          const client = await serviceClient(options);
          const server = new URL(client.baseUrl).origin;
          const start = options.after ?? (options.state ? await readState(options.state, server) : undefined);
          const progress = rt.progress();
          const line = (value: unknown) => {
            io.stdout.write(`${JSON.stringify(value)}\n`);
          };
          let snapshotCount = 0;
          const persist = async (lastSequence: number) => {
            if (options.state) {
              await writeState(options.state, { server, lastSequence, updatedAt: new Date().toISOString() });
            }
          };
          const onEvent = async (event: FeedEvent) => {
            switch (event.type) {
              case "reset":
                snapshotCount = 0;
                if (event.reason === "cursor-expired")
                  progress.log("feed: the position has expired (410); starting again with a new snapshot");
                line({ type: "snapshot.reset", reason: event.reason });
                return;
              case "snapshot-page":
                for (const entitlement of event.items)
                  line({ type: "snapshot.entitlement", asOfSequence: event.asOfSequence, entitlement });
                snapshotCount += event.items.length;
                progress.update(`feed: snapshot as of ${event.asOfSequence}: ${snapshotCount} entitlements`);
                return;
              case "snapshot-complete":
                line({ type: "snapshot.complete", asOfSequence: event.asOfSequence });
                await persist(event.asOfSequence);
                return;
              case "changes-page":
                for (const change of event.items) line(change);
                await persist(event.lastSequence);
                progress.update(`feed: at ${event.lastSequence} of ${event.latestSequence}`);
                return;
              case "idle":
                progress.update(`feed: caught up at ${event.position}${options.follow ? ", waiting" : ""}`);
                return;
            }
          };
          const reader = createFeedReader({
            client,
            afterSequence: start,
            snapshotLimit: options.limit,
            changesLimit: options.limit,
            onEvent,
          });
          if (!options.follow) {
            const at = await reader.catchUp();
            progress.done(`feed: caught up at ${at}`);
            return;
          }
          const { signal, release } = interruption(io.signal);
          try {
            const at = await reader.follow({ pollIntervalMs: options.pollMs, signal });
            progress.done(`feed: stopped at ${at ?? "-"}`);
          } finally {
            release();
          }
        },
      ),
    );
}

/** The caller's signal, or one that SIGINT/SIGTERM abort (the tail then ends after its page). */
function interruption(given: AbortSignal | undefined): { signal: AbortSignal; release: () => void } {
  if (given) return { signal: given, release: () => undefined };
  const controller = new AbortController();
  const stop = () => {
    controller.abort();
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  return {
    signal: controller.signal,
    release: () => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
    },
  };
}
