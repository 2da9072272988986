import type { RequestBody } from "./api.js";
import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import {
  characterCount,
  headers as headerNames,
  workflowKeyMaxCharacters,
  type Entrypoint,
} from "../protocol/index.js";
import { createClient, type ClientOptions, type HanseClient } from "./client.js";
import { expandAction, requiresHeader, selectAction } from "./entrypoints.js";
import { HanseApiError, HanseNetworkError, HanseProtocolError, WaitTimeoutError } from "./errors.js";
import { createTransport, retryAfterMs, type Transport } from "./http.js";
import type { TransitionRequestState, TransitionRequestStatus } from "./types.js";

/**
 * Spec D limits: a key is 1–255 characters of any kind. A header carries bytes, so the key goes
 * out as its UTF-8 (one latin1 character per byte is how undici writes them); characters a header
 * cannot carry at all (control characters, line breaks) are refused here.
 */
export function workflowKeyOnTheWire(key: string): string {
  const characters = characterCount(key);
  // eslint-disable-next-line no-control-regex
  if (characters === 0 || characters > workflowKeyMaxCharacters || /[\x00-\x1f\x7f]/.test(key)) {
    throw new TypeError("an idempotency key is 1–255 characters, without control characters");
  }
  return Buffer.from(key, "utf8").toString("latin1");
}

/** The published entry of rules/interface D (rules/contract §6). */
export const workflowTransitionsEntryId = "workflows.transitionRequests";

export type TransitionRequestInput = RequestBody<"requestTransition">;

export type { TransitionRequestState, TransitionRequestStatus } from "./types.js";

export interface TransitionAccepted {
  requestId: string;
  status: TransitionRequestState;
  /** Absolute URL of the status document. */
  statusUrl: string;
  /** The key sent; reuse it to retry the same request safely. */
  idempotencyKey: string;
  /** True when the server replayed the first answer for this key. */
  replayed: boolean;
  /** Suggested wait before the first status read. */
  retryAfterMs: number;
}

export interface RequestTransitionOptions {
  /** Reused on every retry; a random UUID when not given. */
  idempotencyKey?: string;
  /** `X-Tenant-ID`; the session's tenant (from whoami) when not given. */
  tenantId?: string;
  /** Attempts on network errors, "in progress" and 503 answers (default 4). */
  maxAttempts?: number;
  /** Pause before the second attempt; doubles each time (default 500 ms). */
  retryDelayMs?: number;
}

export interface WaitForTransitionOptions {
  onProgress?: (status: TransitionRequestStatus) => void;
  /** Give up after this long (default 10 minutes). */
  timeoutMs?: number;
  /** Wait before the first read, e.g. the 202's Retry-After (default 0). */
  initialDelayMs?: number;
  /** Upper bound of one pause, whatever Retry-After says (default 30 s). */
  maxPollIntervalMs?: number;
  /** Pause when the server sends no Retry-After (default 1 s). */
  fallbackPollIntervalMs?: number;
  signal?: AbortSignal;
}

export interface TransitionStatusRead {
  status: TransitionRequestStatus;
  /** From Retry-After; undefined once the status is terminal. */
  retryAfterMs: number | undefined;
}

export interface WorkflowsApi {
  /** POST through the published create action; retries with the same key after a lost answer. */
  requestTransition(
    input: TransitionRequestInput,
    options?: RequestTransitionOptions,
  ): Promise<TransitionAccepted>;
  /** Reads a status document by its URL (or by request id through the published read action). */
  status(statusUrlOrRequestId: string): Promise<TransitionStatusRead>;
  /** Polls the status, honouring Retry-After, until `succeeded` or `failed`. */
  waitForTransition(
    statusUrlOrRequestId: string,
    options?: WaitForTransitionOptions,
  ): Promise<TransitionRequestStatus>;
}

export const isTerminalTransitionState = (state: string): boolean =>
  state === "succeeded" || state === "failed";

/** The workflows API over a transport and the client that reads the session's entrypoints. */
export function createWorkflowsApi(
  transport: Transport,
  client: Pick<HanseClient, "findEntry" | "whoami">,
): WorkflowsApi {
  const entry = (): Promise<Entrypoint> => client.findEntry(workflowTransitionsEntryId);

  const statusHref = async (statusUrlOrRequestId: string): Promise<string> => {
    if (statusUrlOrRequestId.includes("/")) return statusUrlOrRequestId;
    const published = await entry();
    const read = published.actions.find((a) => a.id === "read");
    const template =
      read?.href ??
      published.actions.find((a) => a.id === "create" && a.statusHref !== undefined)?.statusHref;
    // No read action published: a definitive denial, not a reason to guess the path.
    const href = template ?? selectAction(published, "read").href;
    return expandAction(href, { requestId: statusUrlOrRequestId, id: statusUrlOrRequestId });
  };

  const status = async (statusUrlOrRequestId: string): Promise<TransitionStatusRead> => {
    const href = await statusHref(statusUrlOrRequestId);
    const answer = await transport.send<TransitionRequestStatus>({ method: "GET", href });
    if (typeof answer.body.status !== "string") {
      throw new HanseProtocolError("the status document has no status");
    }
    const header = answer.headers[headerNames.retryAfter];
    return {
      status: answer.body,
      retryAfterMs: header === undefined ? undefined : retryAfterMs(header, { fallbackMs: 1000 }),
    };
  };

  return {
    async requestTransition(input, options = {}) {
      const published = await entry();
      const action = selectAction(published, "create");
      const key = options.idempotencyKey ?? randomUUID();
      const tenantId = options.tenantId ?? (await client.whoami()).tenant.id;
      const requestHeaders: Record<string, string> = { "X-Idempotency-Key": workflowKeyOnTheWire(key) };
      if (requiresHeader(action, "X-Tenant-ID") || options.tenantId !== undefined) {
        requestHeaders["X-Tenant-ID"] = tenantId;
      }
      const body: TransitionRequestInput = {
        entity: input.entity,
        entityId: input.entityId,
        transition: input.transition,
        ...(input.payload !== undefined ? { payload: input.payload } : {}),
      };
      const maxAttempts = Math.max(1, options.maxAttempts ?? 4);
      let delay = options.retryDelayMs ?? 500;
      for (let attempt = 1; ; attempt++) {
        try {
          const answer = await transport.send<{ requestId?: unknown; status?: unknown; statusUrl?: unknown }>(
            {
              method: action.method,
              href: action.href,
              headers: requestHeaders,
              body,
            },
          );
          const expected = action.acceptedStatus ?? 202;
          const { requestId, statusUrl } = answer.body;
          if (answer.status !== expected || typeof requestId !== "string" || typeof statusUrl !== "string") {
            throw new HanseProtocolError(
              `the transition request answered ${answer.status} without requestId and statusUrl (expected ${expected})`,
            );
          }
          return {
            requestId,
            status: (typeof answer.body.status === "string"
              ? answer.body.status
              : "pending") as TransitionRequestState,
            statusUrl: transport.resolve(statusUrl).href,
            idempotencyKey: key,
            replayed: answer.headers[headerNames.idempotentReplayed] === "true",
            retryAfterMs: retryAfterMs(answer.headers[headerNames.retryAfter], { fallbackMs: 1000 }),
          };
        } catch (error) {
          // The same key makes the retry safe: the server replays the first answer.
          if (attempt >= maxAttempts || !isRetryable(error)) throw error;
          await sleep(delay);
          delay *= 2;
        }
      }
    },

    status,

    async waitForTransition(statusUrlOrRequestId, options = {}) {
      const deadline = Date.now() + (options.timeoutMs ?? 600_000);
      const maxPoll = options.maxPollIntervalMs ?? 30_000;
      const fallback = options.fallbackPollIntervalMs ?? 1000;
      let pause = Math.min(options.initialDelayMs ?? 0, maxPoll);
      let networkFailures = 0;
      for (;;) {
        if (pause > 0) {
          if (Date.now() + pause > deadline) {
            throw new WaitTimeoutError(`the transition request did not finish in time`);
          }
          await sleep(pause, undefined, { signal: options.signal });
        }
        let read: TransitionStatusRead;
        try {
          read = await status(statusUrlOrRequestId);
          networkFailures = 0;
        } catch (error) {
          if (!isRetryable(error) || ++networkFailures > 5) throw error;
          pause = Math.min(fallback * 2 ** networkFailures, maxPoll);
          continue;
        }
        options.onProgress?.(read.status);
        if (isTerminalTransitionState(read.status.status)) return read.status;
        pause = Math.min(read.retryAfterMs ?? fallback, maxPoll);
      }
    },
  };
}

/** A workflows client of its own (until the main client exposes one). */
export function createWorkflowsClient(options: ClientOptions): WorkflowsApi {
  return createWorkflowsApi(createTransport(options), createClient(options));
}

function isRetryable(error: unknown): boolean {
  if (error instanceof HanseNetworkError) return true;
  if (error instanceof HanseApiError) {
    return error.code === "ERR_IDEMPOTENCY_IN_PROGRESS" || error.status === 503;
  }
  return false;
}
