import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { headers as headerNames, idempotencyKeyPattern, type Entrypoint } from "../protocol/index.js";
import { expandAction, selectAction } from "./entrypoints.js";
import {
  EntrypointMissingError,
  HanseApiError,
  HanseNetworkError,
  HanseProtocolError,
  LocationMismatchError,
  WaitTimeoutError,
} from "./errors.js";
import { retryAfterMs, type Transport } from "./http.js";
import type { CreateTenantInput, CreateTenantResult, Page, ProvisioningStatus, Tenant } from "./types.js";

export const systemTenantsEntryId = "system.tenants";

export interface CreateOptions {
  /** Reused on every retry; a random UUID when not given. */
  idempotencyKey?: string;
  /** Attempts on network errors and "in progress"/503 answers (default 3). */
  maxAttempts?: number;
  /** Pause before the second attempt; doubles each time (default 500 ms). */
  retryDelayMs?: number;
}

export interface WaitOptions {
  /** Called with every status read, terminal or not. */
  onProgress?: (status: ProvisioningStatus) => void;
  /** Give up after this long (default 10 minutes). */
  timeoutMs?: number;
  /** Wait before the first read, e.g. the create answer's Retry-After (default 0). */
  initialDelayMs?: number;
  /** Upper bound of one pause, whatever Retry-After says (default 30 s). */
  maxPollIntervalMs?: number;
  /** Pause when the server sends no Retry-After (default 1 s). */
  fallbackPollIntervalMs?: number;
  signal?: AbortSignal;
}

export interface ProvisioningRead {
  status: ProvisioningStatus;
  /** From Retry-After; undefined when the server sent none (terminal state). */
  retryAfterMs: number | undefined;
}

export interface TenantsApi {
  list(options?: { limit?: number; cursor?: string }): Promise<Page<Tenant>>;
  /** Every tenant, following `meta.nextCursor` page by page. */
  listAll(options?: { limit?: number }): AsyncGenerator<Tenant, void, undefined>;
  get(tenantId: string): Promise<Tenant>;
  /** Offboarding (rules/contract §7): every credential of the tenant refused, its jobs waiting; idempotent. */
  suspend(tenantId: string): Promise<Tenant>;
  /** Brings a suspended tenant back with the same credentials; idempotent. */
  resume(tenantId: string): Promise<Tenant>;
  create(input: CreateTenantInput, options?: CreateOptions): Promise<CreateTenantResult>;
  provisioning(tenantId: string): Promise<ProvisioningRead>;
  waitForProvisioning(tenantId: string, options?: WaitOptions): Promise<ProvisioningStatus>;
}

export function createTenantsApi(transport: Transport, entry: () => Promise<Entrypoint>): TenantsApi {
  const statusHrefFor = async (tenantId: string): Promise<string> => {
    const published = await entry();
    // The create action publishes the status template; no path is derived from the collection.
    const action =
      published.actions.find((a) => a.id === "create" && a.statusHref !== undefined) ??
      published.actions.find((a) => a.statusHref !== undefined);
    if (action?.statusHref === undefined) {
      throw new EntrypointMissingError(published.id, "create", "status-href");
    }
    return expandAction(action.statusHref, { tenantId, id: tenantId });
  };

  const provisioning = async (tenantId: string): Promise<ProvisioningRead> => {
    const href = await statusHrefFor(tenantId);
    const answer = await transport.send<ProvisioningStatus>({ method: "GET", href });
    const header = answer.headers[headerNames.retryAfter];
    return {
      status: answer.body,
      retryAfterMs: header === undefined ? undefined : retryAfterMs(header, { fallbackMs: 1000 }),
    };
  };

  const list = async (options: { limit?: number; cursor?: string } = {}): Promise<Page<Tenant>> => {
    const action = selectAction(await entry(), "list");
    const answer = await transport.send<Page<Tenant>>({
      method: action.method,
      href: action.href,
      query: { limit: options.limit, cursor: options.cursor },
    });
    return answer.body;
  };

  /** One action of the published entry on one tenant, answered with the tenant. */
  const tenantAction = async (actionId: "read" | "suspend" | "resume", tenantId: string): Promise<Tenant> => {
    const action = selectAction(await entry(), actionId);
    const href = expandAction(action.href, { tenantId, id: tenantId });
    return (await transport.send<Tenant>({ method: action.method, href })).body;
  };

  return {
    list,

    async *listAll(options = {}) {
      let cursor: string | undefined;
      for (;;) {
        const page = await list({ limit: options.limit, cursor });
        yield* page.items;
        if (!page.meta.hasMore || page.meta.nextCursor === null) return;
        cursor = page.meta.nextCursor;
      }
    },

    get: (tenantId) => tenantAction("read", tenantId),
    suspend: (tenantId) => tenantAction("suspend", tenantId),
    resume: (tenantId) => tenantAction("resume", tenantId),

    async create(input, options = {}) {
      const published = await entry();
      const action = selectAction(published, "create");
      const key = options.idempotencyKey ?? randomUUID();
      if (!idempotencyKeyPattern.test(key)) {
        throw new TypeError("an idempotency key is 1–255 visible ASCII characters");
      }
      // Sent even when not listed in requiredHeaders: retries after a lost answer depend on it.
      const requestHeaders: Record<string, string> = { "Idempotency-Key": key };
      const maxAttempts = Math.max(1, options.maxAttempts ?? 3);
      let delay = options.retryDelayMs ?? 500;
      for (let attempt = 1; ; attempt++) {
        try {
          const answer = await transport.send<{ tenantId?: unknown; status?: unknown; statusHref?: unknown }>(
            {
              method: action.method,
              href: action.href,
              headers: requestHeaders,
              body: input,
            },
          );
          const expectedStatus = action.acceptedStatus ?? 202;
          if (answer.status !== expectedStatus || typeof answer.body.tenantId !== "string") {
            throw new HanseProtocolError(
              `create answered ${answer.status} without a tenant id (expected ${expectedStatus})`,
            );
          }
          const tenantId = answer.body.tenantId;
          const location = verifyLocation(
            transport,
            published,
            tenantId,
            answer.headers[headerNames.location],
          );
          const statusHref =
            action.statusHref !== undefined
              ? expandAction(action.statusHref, { tenantId, id: tenantId })
              : typeof answer.body.statusHref === "string"
                ? answer.body.statusHref
                : "";
          return {
            tenantId,
            // The create answer's one status (its schema's enum); the state is read from statusHref.
            status: "provisioning",
            statusHref: statusHref === "" ? "" : transport.resolve(statusHref).href,
            location,
            retryAfterMs: retryAfterMs(answer.headers[headerNames.retryAfter], { fallbackMs: 1000 }),
            replayed: answer.headers[headerNames.idempotentReplayed] === "true",
            idempotencyKey: key,
          };
        } catch (error) {
          if (attempt >= maxAttempts || !isRetryable(error)) throw error;
          await sleep(delay);
          delay *= 2;
        }
      }
    },

    provisioning,

    async waitForProvisioning(tenantId, options = {}) {
      const deadline = Date.now() + (options.timeoutMs ?? 600_000);
      const maxPoll = options.maxPollIntervalMs ?? 30_000;
      const fallback = options.fallbackPollIntervalMs ?? 1000;
      let pause = Math.min(options.initialDelayMs ?? 0, maxPoll);
      for (;;) {
        if (pause > 0) {
          if (Date.now() + pause > deadline) {
            throw new WaitTimeoutError(`provisioning of ${tenantId} did not finish in time`);
          }
          await sleep(pause, undefined, { signal: options.signal });
        }
        const read = await provisioning(tenantId);
        options.onProgress?.(read.status);
        if (read.status.terminal) return read.status;
        pause = Math.min(read.retryAfterMs ?? fallback, maxPoll);
      }
    },
  };
}

function isRetryable(error: unknown): boolean {
  if (error instanceof HanseNetworkError) return true;
  if (error instanceof HanseApiError) {
    return error.code === "ERR_IDEMPOTENCY_IN_PROGRESS" || error.status === 503;
  }
  return false;
}

/** Spec B rule 4: `Location` must name the tenant just created. Returns it as an absolute URL. */
function verifyLocation(
  transport: Transport,
  entry: Entrypoint,
  tenantId: string,
  location: string | undefined,
): string {
  const read = entry.actions.find((a) => a.id === "read");
  const expected =
    read !== undefined
      ? transport.resolve(expandAction(read.href, { tenantId, id: tenantId })).href
      : `${transport.resolve(entry.href).href}/${encodeURIComponent(tenantId)}`;
  if (location === undefined || location === "") throw new LocationMismatchError(expected, undefined);
  let actual: URL;
  try {
    actual = transport.resolve(location);
  } catch {
    throw new LocationMismatchError(expected, location);
  }
  actual.hash = "";
  actual.search = "";
  if (read !== undefined) {
    if (actual.href !== expected) throw new LocationMismatchError(expected, location);
    return actual.href;
  }
  // Without a published read action, the last path segment must be the tenant id.
  const last = actual.pathname.split("/").filter(Boolean).pop();
  if (last === undefined || decodeURIComponent(last) !== tenantId) {
    throw new LocationMismatchError(expected, location);
  }
  return actual.href;
}
