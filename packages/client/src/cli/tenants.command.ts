import { randomUUID } from "node:crypto";
import { InvalidArgumentError, type Command } from "commander";
import type { HanseClient } from "../sdk/client.js";
import { selectAction } from "../sdk/entrypoints.js";
import { HanseNetworkError } from "../sdk/errors.js";
import { systemTenantsEntryId } from "../sdk/tenants.js";
import type { CreateTenantInput, ProvisioningStatus, Tenant } from "../sdk/types.js";
import { readSecret } from "./cli-io.js";
import { renderSteps } from "./progress.js";
import { renderOutcome, renderTable, renderTenant } from "./tenants.render.js";
import { CLI_EXIT, CliError, type Runtime } from "./runtime.js";

interface ListOptions {
  limit?: number;
  cursor?: string;
  all?: boolean;
  json?: boolean;
}

interface CreateOptions {
  name: string;
  slug: string;
  adminEmail?: string;
  adminName?: string;
  adminPasswordStdin?: boolean;
  idempotencyKey?: string;
  wait?: boolean;
  timeout: number;
  json?: boolean;
}

const parseLimit = (value: string): number => {
  const limit = Number(value);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) {
    throw new InvalidArgumentError("a whole number from 1 to 100");
  }
  return limit;
};

const parseSeconds = (value: string): number => {
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || seconds <= 0)
    throw new InvalidArgumentError("a positive number of seconds");
  return seconds;
};

/** `hanse tenants list|get|create|suspend|resume`: only through the published `system.tenants` entry. */
export function registerTenantsCommands(program: Command, rt: Runtime): void {
  const tenants = rt
    .command(program, "tenants")
    .description("System tenant administration (published entrypoint system.tenants)");

  rt.command(tenants, "list")
    .description("List tenants")
    .option("--limit <n>", "page size, 1–100", parseLimit)
    .option("--cursor <cursor>", "continue after a previous page")
    .option("--all", "follow every page")
    .option("--json", "machine-readable output")
    .action(
      rt.action(async (options: ListOptions) => {
        const client = await rt.client();
        let items: Tenant[];
        let meta: { hasMore: boolean; nextCursor: string | null };
        if (options.all) {
          items = [];
          for await (const tenant of client.tenants.listAll({ limit: options.limit })) items.push(tenant);
          meta = { hasMore: false, nextCursor: null };
        } else {
          ({ items, meta } = await client.tenants.list({ limit: options.limit, cursor: options.cursor }));
        }
        if (options.json) {
          rt.printJson({ items, meta });
          return;
        }
        rt.print(renderTable(items));
        if (meta.hasMore && meta.nextCursor !== null) {
          rt.print(`More tenants: hanse tenants list --cursor '${meta.nextCursor}' (or --all)`);
        }
      }),
    );

  rt.command(tenants, "get")
    .description("Show one tenant")
    .argument("<id>", "tenant id")
    .option("--json", "machine-readable output")
    .action(
      rt.action(async (id: string, options: { json?: boolean }) => {
        const client = await rt.client();
        const tenant = await client.tenants.get(id);
        if (options.json) rt.printJson(tenant);
        else rt.print(renderTenant(tenant));
      }),
    );

  for (const act of ["suspend", "resume"] as const) {
    rt.command(tenants, act)
      .description(
        act === "suspend"
          ? "Suspend a tenant: its sessions, access tokens, partner API keys and service credentials are " +
              "refused, its deliveries and webhooks wait; nothing is deleted"
          : "Resume a suspended tenant: the same credentials work again, its waiting jobs run",
      )
      .argument("<id>", "tenant id")
      .option("--json", "machine-readable output")
      .action(
        rt.action(async (id: string, options: { json?: boolean }) => {
          const client = await rt.client();
          const tenant =
            act === "suspend" ? await client.tenants.suspend(id) : await client.tenants.resume(id);
          if (options.json) rt.printJson(tenant);
          else rt.print(renderTenant(tenant));
        }),
      );
  }

  rt.command(tenants, "create")
    .description("Start provisioning a customer tenant (202); --wait follows its status to the end")
    .requiredOption("--name <name>", "display name")
    .requiredOption("--slug <slug>", "unique slug (lower-case letters, digits, inner hyphens)")
    .option("--admin-email <email>", "e-mail of the tenant's first administrator")
    .option("--admin-name <name>", "name of the first administrator")
    .option(
      "--admin-password-stdin",
      "read the administrator's password from stdin (else HANSE_ADMIN_PASSWORD)",
    )
    .option("--idempotency-key <key>", "reuse to retry safely (default: a new random key)")
    .option("--wait", "wait until provisioning succeeds or fails, showing its steps")
    .option("--timeout <seconds>", "give up waiting after this long", parseSeconds, 600)
    .option("--json", "machine-readable output")
    .action(
      rt.action(async (options: CreateOptions) => {
        const input = await createInput(rt, options);
        const client = await rt.client();
        // Capabilities first (rules/interface B rule 5): stop before changing data if the flow cannot finish.
        const entry = await client.findEntry(systemTenantsEntryId);
        const create = selectAction(entry, "create");
        if (options.wait) await assertCanReadStatus(client, create.statusRequiredAnyScopes);

        const key = options.idempotencyKey ?? randomUUID();
        let accepted;
        try {
          accepted = await client.tenants.create(input, { idempotencyKey: key });
        } catch (error) {
          if (error instanceof HanseNetworkError && options.idempotencyKey === undefined) {
            throw new CliError(
              `${error.message}; the tenant may or may not have been created.\n` +
                `  Retry safely with: --idempotency-key ${key}  (correlation id: ${error.correlationId})`,
            );
          }
          throw error;
        }
        const summary = {
          tenantId: accepted.tenantId,
          slug: input.slug,
          status: accepted.status,
          location: accepted.location,
          statusHref: accepted.statusHref,
          replayed: accepted.replayed,
        };
        if (!options.wait) {
          if (options.json) rt.printJson({ ...summary, provisioning: null });
          else
            rt.print(
              [
                `Accepted: tenant ${input.slug} (${accepted.tenantId}) is ${accepted.status}${accepted.replayed ? " (replayed answer)" : ""}.`,
                `Location verified: ${accepted.location}`,
                `Status: ${accepted.statusHref}`,
              ].join("\n"),
            );
          return;
        }
        if (!options.json) {
          rt.print(
            `Accepted: tenant ${input.slug} (${accepted.tenantId}); Location verified: ${accepted.location}`,
          );
        }
        const final = await followProvisioning(client, rt, accepted.tenantId, {
          initialDelayMs: accepted.retryAfterMs,
          timeoutMs: options.timeout * 1000,
        });
        if (options.json) rt.printJson({ ...summary, provisioning: final });
        else rt.print(renderOutcome(input.slug, final));
        failUnlessSucceeded(input.slug, final);
      }),
    );

  rt.command(tenants, "provisioning")
    .description("Show a tenant's provisioning status; --wait follows it to the end")
    .argument("<id>", "tenant id")
    .option("--wait", "wait until provisioning succeeds or fails, showing its steps")
    .option("--timeout <seconds>", "give up waiting after this long", parseSeconds, 600)
    .option("--json", "machine-readable output")
    .action(
      rt.action(async (id: string, options: { wait?: boolean; timeout: number; json?: boolean }) => {
        const client = await rt.client();
        const status = options.wait
          ? await followProvisioning(client, rt, id, { initialDelayMs: 0, timeoutMs: options.timeout * 1000 })
          : (await client.tenants.provisioning(id)).status;
        if (options.json) rt.printJson(status);
        else rt.print(renderOutcome(id, status));
        if (status.terminal) failUnlessSucceeded(id, status);
      }),
    );
}

/** Polls the published status link, honouring Retry-After, with a progress line on stderr. */
async function followProvisioning(
  client: HanseClient,
  rt: Runtime,
  tenantId: string,
  options: { initialDelayMs: number; timeoutMs: number },
): Promise<ProvisioningStatus> {
  const progress = rt.progress();
  const final = await client.tenants.waitForProvisioning(tenantId, {
    ...options,
    onProgress: (status) => {
      progress.update(renderSteps(status.state, status.steps));
    },
  });
  progress.done(renderSteps(final.state, final.steps));
  return final;
}

function failUnlessSucceeded(name: string, status: ProvisioningStatus): void {
  if (status.state === "succeeded") return;
  const reason = status.error ? `: ${status.error.code}: ${status.error.message}` : "";
  throw new CliError(`provisioning of ${name} ${status.state}${reason}`, CLI_EXIT.provisioningFailed);
}

async function createInput(rt: Runtime, options: CreateOptions): Promise<CreateTenantInput> {
  const input: CreateTenantInput = { name: options.name, slug: options.slug };
  if (options.adminEmail === undefined) {
    if (options.adminPasswordStdin || options.adminName !== undefined) {
      throw new CliError("--admin-password-stdin and --admin-name need --admin-email");
    }
    return input;
  }
  const password = options.adminPasswordStdin
    ? await readSecret(rt.io.stdin ?? process.stdin)
    : rt.io.env.HANSE_ADMIN_PASSWORD;
  if (password === undefined || password === "") {
    throw new CliError(
      "no administrator password: pipe it with --admin-password-stdin or set HANSE_ADMIN_PASSWORD",
    );
  }
  input.admin = {
    email: options.adminEmail,
    password,
    ...(options.adminName !== undefined ? { name: options.adminName } : {}),
  };
  return input;
}

/** Spec B rule 3: starting provisioning does not imply being allowed to read its status. */
async function assertCanReadStatus(
  client: HanseClient,
  anyScopes: readonly string[] | undefined,
): Promise<void> {
  if (!anyScopes || anyScopes.length === 0) return;
  const me = await client.whoami();
  if (!anyScopes.some((scope) => me.scopes.includes(scope))) {
    throw new CliError(
      `--wait needs one of the scopes ${anyScopes.join(", ")} to read the provisioning status; ` +
        "this session has none. Nothing was created; run without --wait or with other credentials.",
    );
  }
}
