import { InvalidArgumentError, type Command } from "commander";
import { createClient } from "../sdk/client.js";
import { HanseProtocolError } from "../sdk/errors.js";
import { createWorkflowsApi, type TransitionRequestStatus, type WorkflowsApi } from "../sdk/workflows.js";
import { createTransport } from "../sdk/http.js";
import type { CliIo } from "./cli-io.js";
import { parseJsonObject } from "./options.js";
import { credentialsPath, readCredentials } from "./credentials.js";
import { CliError, createRuntime, envToken, type Runtime } from "./runtime.js";

/** Exit code when the transition request ended `failed` (0 ok, 1 API or usage error). */
export const transitionFailedExitCode = 2;

interface TransitionOptions {
  entity: string;
  id: string;
  transition: string;
  key?: string;
  payload?: Record<string, unknown>;
  tenantId?: string;
  wait?: boolean;
  timeout: number;
  json?: boolean;
}

const parseSeconds = (value: string): number => {
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || seconds <= 0)
    throw new InvalidArgumentError("a positive number of seconds");
  return seconds;
};

/** The server URL and token the other client commands use (env first, then `hanse login`'s file). */
async function workflowsApi(rt: Runtime): Promise<WorkflowsApi> {
  const client = await rt.client();
  const stored = await readCredentials(credentialsPath(rt.io.env));
  const token =
    envToken(rt.io.env) ?? (stored && sameOrigin(stored.url, client.baseUrl) ? stored.token : undefined);
  if (token === undefined || token === "")
    throw new CliError("not logged in: run `hanse login` or set HANSE_TOKEN");
  const options = { baseUrl: client.baseUrl, token };
  return createWorkflowsApi(createTransport(options), createClient(options));
}

const sameOrigin = (a: string, b: string): boolean => {
  try {
    return new URL(a).origin === new URL(b).origin;
  } catch {
    return false;
  }
};

function render(status: TransitionRequestStatus): string {
  const lines = [`request ${status.requestId}: ${status.status}`];
  lines.push(`  ${status.entity} ${status.entityId}: ${status.transition}`);
  if (status.result) lines.push(`  state: ${status.result.fromState} → ${status.result.toState}`);
  if (status.error) lines.push(`  error: ${status.error.code}: ${status.error.message}`);
  return lines.join("\n");
}

function finish(rt: Runtime, status: TransitionRequestStatus, json: boolean | undefined): void {
  if (json) rt.printJson(status);
  else rt.print(render(status));
  if (status.status === "failed") {
    throw new CliError(
      `the transition request ended failed (${status.error?.code ?? "no code"})`,
      transitionFailedExitCode,
    );
  }
}

/**
 * `hanse workflow transition …` and `hanse workflow status …`, through the published
 * `workflows.transitionRequests` entry. Exit codes: 0 ok, 1 API or usage error, 2 the request failed.
 */
export function registerWorkflowCommands(program: Command, io: CliIo): void {
  const rt = createRuntime(io);
  const workflow = rt
    .command(program, "workflow")
    .description("Workflow transition requests (rules/interface D)");

  rt.command(workflow, "transition")
    .description("Request a workflow transition (202); --wait follows its status until it succeeds or fails")
    .requiredOption("--entity <kind>", "entity kind, e.g. product")
    .requiredOption("--id <entityId>", "the entity's id")
    .requiredOption("--transition <name>", "transition name, e.g. submit")
    .option("--key <key>", "idempotency key; reuse it to retry safely (default: a new random key)")
    .option("--payload <json>", "a JSON object sent with the request", parseJsonObject)
    .option("--tenant-id <id>", "X-Tenant-ID (default: the session's tenant)")
    .option("--wait", "wait until the request succeeds or fails; exit 2 when it failed")
    .option("--timeout <seconds>", "give up waiting after this long", parseSeconds, 600)
    .option("--json", "machine-readable output")
    .action(
      rt.action(async (options: TransitionOptions) => {
        const api = await workflowsApi(rt);
        const accepted = await api.requestTransition(
          {
            entity: options.entity,
            entityId: options.id,
            transition: options.transition,
            ...(options.payload ? { payload: options.payload } : {}),
          },
          {
            ...(options.key !== undefined ? { idempotencyKey: options.key } : {}),
            ...(options.tenantId !== undefined ? { tenantId: options.tenantId } : {}),
          },
        );
        if (!options.wait) {
          if (options.json) rt.printJson(accepted);
          else {
            rt.print(
              [
                `accepted: request ${accepted.requestId} (${accepted.status})${accepted.replayed ? ", replayed" : ""}`,
                `  status: ${accepted.statusUrl}`,
                `  idempotency key: ${accepted.idempotencyKey} (reuse it with --key to retry safely)`,
              ].join("\n"),
            );
          }
          return;
        }
        if (!options.json && !rt.quiet)
          rt.io.stderr.write(`accepted: request ${accepted.requestId}; waiting…\n`);
        const status = await api.waitForTransition(accepted.statusUrl, {
          initialDelayMs: Math.min(accepted.retryAfterMs, 5000),
          timeoutMs: options.timeout * 1000,
        });
        finish(rt, status, options.json);
      }),
    );

  rt.command(workflow, "status")
    .description("Show a transition request's status")
    .argument("<request>", "request id or status URL")
    .option("--wait", "wait until it succeeds or fails; exit 2 when it failed")
    .option("--timeout <seconds>", "give up waiting after this long", parseSeconds, 600)
    .option("--json", "machine-readable output")
    .action(
      rt.action(async (request: string, options: { wait?: boolean; timeout: number; json?: boolean }) => {
        const api = await workflowsApi(rt);
        const status = options.wait
          ? await api.waitForTransition(request, { timeoutMs: options.timeout * 1000 })
          : (await api.status(request)).status;
        if (typeof status.status !== "string")
          throw new HanseProtocolError("the status document has no status");
        finish(rt, status, options.json);
      }),
    );
}
