/**
 * The service side of the entitlement area (rules/interface C, rules/contract §5): a client that signs every
 * request attempt, iterators over the snapshot and the change feed, a feed reader that follows
 * rules 1–2 (snapshot, then changes; a new snapshot after ERR_APP_ENTITLEMENT_CURSOR_EXPIRED) and
 * a local projection that decides with the one decision function of protocol/. Imports only
 * protocol/ (docs/architecture.md, "Layers").
 */
import type { ResponseBody } from "./api.js";
import { createHash, createHmac, randomBytes } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import {
  canonicalServiceRequest,
  decideEntitlement,
  serviceCredentialIdPattern,
  serviceHeaders,
  type Entitlement,
  type EntitlementDecision,
} from "../protocol/index.js";
import {
  CursorExpiredError,
  FeedSequenceError,
  HanseApiError,
  HanseNetworkError,
  HanseProtocolError,
} from "./errors.js";
import { createTransport, retryAfterMs, type Answer, type SendInput } from "./http.js";
import type { Jwks } from "./grant-verifier.js";

export type { Entitlement, EntitlementDecision, EntitlementStatus } from "../protocol/index.js";

/** The well-known paths of rules/interface C's service interface. */
export const entitlementServicePaths = {
  introspect: "/api/v1/public/v1/app-entitlements/service/introspect/",
  snapshot: "/api/v1/public/v1/app-entitlements/service/snapshot",
  changes: "/api/v1/public/v1/app-entitlements/service/changes",
  grants: "/api/v1/public/v1/app-entitlements/service/grants/",
  jwks: "/api/v1/public/v1/app-entitlements/jwks",
} as const;

export const cursorExpiredCode = "ERR_APP_ENTITLEMENT_CURSOR_EXPIRED";

export type Introspection = ResponseBody<"introspectEntitlement">;

export type SnapshotPage = ResponseBody<"getEntitlementSnapshot">;

export type EntitlementChange = ChangesPage["items"][number];

export type ChangesPage = ResponseBody<"listEntitlementChanges">;

export type GrantResult = ResponseBody<"issueGrant">;

export interface ServiceClientOptions {
  /** Origin of the service, e.g. `https://hanse.example`. */
  baseUrl: string;
  /** `hanse_sc_…`, as issued with the binding. */
  credentialId: string;
  /** The secret as issued; only ever used as the HMAC key, never sent, logged or put in an error. */
  secret: string;
  /** Time limit of one attempt (default 30 s). */
  fetchTimeoutMs?: number | undefined;
  /** Further attempts after a network error, 429 or 503, each with a new nonce and timestamp (default 3). */
  retries?: number | undefined;
  /** Pause before the first retry when no Retry-After is sent; doubles each time (default 250 ms). */
  retryDelayMs?: number | undefined;
  /** Upper bound of one pause, Retry-After included (default 30 s). */
  maxRetryDelayMs?: number | undefined;
  /** The clock of the signature's timestamp (default the system clock). */
  now?: (() => Date) | undefined;
}

export interface FollowOptions {
  afterSequence: number;
  limit?: number | undefined;
  /** Pause after a page that reached the end of the feed (default 2 s). */
  pollIntervalMs?: number | undefined;
  /** Ends the tail (the iterator returns). */
  signal?: AbortSignal | undefined;
}

export interface ServiceClient {
  readonly baseUrl: string;
  readonly credentialId: string;
  /** One online decision for one actor of the binding's app (unknown actor: `entitled: false`). */
  introspect(actorId: string): Promise<Introspection>;
  /**
   * The app's entitlements page by page, every page as of the first page's `asOfSequence`
   * (rules/interface C rule 1). A 410 surfaces as CursorExpiredError.
   */
  snapshot(options?: { limit?: number | undefined }): AsyncGenerator<SnapshotPage, void, undefined>;
  /** Changes after `afterSequence` in ascending order, page by page until `meta.hasMore` is false. */
  changes(options: {
    afterSequence: number;
    limit?: number | undefined;
  }): AsyncGenerator<ChangesPage, void, undefined>;
  /** Like `changes`, then polls for more until `signal` aborts; empty pages are yielded too. */
  follow(options: FollowOptions): AsyncGenerator<ChangesPage, void, undefined>;
  /** A short-lived grant for an entitled actor (403 ERR_APP_ENTITLEMENT_NOT_ENTITLED otherwise). */
  grant(actorId: string): Promise<GrantResult>;
  /** The public keys that verify grants (no signature needed). */
  jwks(): Promise<Jwks>;
}

const nonceBytes = 24;
/** The server's default page size of the change feed. */
const defaultChangesLimit = 100;
/** Change pages requested at once while catching up (see `changes`). */
const prefetch = 3;

/** The four headers of rules/contract §5 for one attempt: a fresh CSPRNG nonce and the current time. */
function signer(credentialId: string, secret: string, now: () => Date) {
  const key = Buffer.from(secret, "utf8");
  return (request: { method: string; target: string; body: string }): Record<string, string> => {
    const timestamp = String(Math.floor(now().getTime() / 1000));
    const nonce = randomBytes(nonceBytes).toString("base64url");
    const canonical = canonicalServiceRequest({
      method: request.method,
      target: request.target,
      timestamp,
      nonce,
      bodySha256Hex: createHash("sha256").update(request.body, "utf8").digest("hex"),
    });
    return {
      [serviceHeaders.credential]: credentialId,
      [serviceHeaders.timestamp]: timestamp,
      [serviceHeaders.nonce]: nonce,
      [serviceHeaders.signature]: createHmac("sha256", key).update(canonical).digest("base64url"),
    };
  };
}

const isRetryable = (error: unknown): error is HanseNetworkError | HanseApiError =>
  error instanceof HanseNetworkError ||
  (error instanceof HanseApiError && (error.status === 503 || error.status === 429));

const asCursorExpired = (error: unknown): unknown =>
  error instanceof HanseApiError && error.status === 410 && error.code === cursorExpiredCode
    ? new CursorExpiredError(error)
    : error;

export function createServiceClient(options: ServiceClientOptions): ServiceClient {
  if (!serviceCredentialIdPattern.test(options.credentialId)) {
    throw new TypeError("credentialId is not a service credential id (hanse_sc_ followed by 32 hex digits)");
  }
  if (typeof options.secret !== "string" || options.secret === "") {
    throw new TypeError("the service secret is empty");
  }
  const transport = createTransport({ baseUrl: options.baseUrl, fetchTimeoutMs: options.fetchTimeoutMs });
  const sign = signer(options.credentialId, options.secret, options.now ?? (() => new Date()));
  const retries = Math.max(0, options.retries ?? 3);
  const firstDelay = options.retryDelayMs ?? 250;
  const maxDelay = options.maxRetryDelayMs ?? 30_000;

  /** One signed call; every attempt goes through `send` again and so gets its own nonce and timestamp. */
  async function call<T>(input: Omit<SendInput, "sign" | "anonymous">): Promise<Answer<T>> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await transport.send<T>({ ...input, anonymous: true, sign });
      } catch (error) {
        if (!isRetryable(error) || attempt >= retries) throw asCursorExpired(error);
        const backoff = Math.min(maxDelay, firstDelay * 2 ** attempt);
        await sleep(
          error instanceof HanseApiError
            ? retryAfterMs(error.retryAfter, { fallbackMs: backoff, maxMs: maxDelay })
            : backoff,
        );
      }
    }
  }

  /**
   * Changes page by page. Sequences have no gaps, so once a page's `meta.latestSequence` shows
   * how far the feed reaches, the pages up to it start at known sequences: up to `prefetch` of
   * them are requested at once (each a signed request of its own) and yielded in order, which
   * hides the round trip per page when catching up. A change that is not the one before it + 1
   * (a gap or a repeat, also across pages) is a FeedSequenceError.
   */
  async function* changes(query: {
    afterSequence: number;
    limit?: number | undefined;
  }): AsyncGenerator<ChangesPage, void, undefined> {
    const limit = query.limit ?? defaultChangesLimit;
    const fetchPage = (after: number) =>
      call<ChangesPage>({
        method: "GET",
        href: entitlementServicePaths.changes,
        query: { afterSequence: after, limit },
      }).then((answer) => answer.body);
    let after = query.afterSequence;
    let latest = after;
    const ahead: { after: number; page: Promise<ChangesPage> }[] = [];
    try {
      for (;;) {
        // Pages known to exist (full pages up to `latest`), requested before they are needed.
        let next = ahead.at(-1)?.after ?? after;
        while (ahead.length < prefetch && (ahead.length === 0 || next + limit < latest)) {
          if (ahead.length > 0) next += limit;
          const page = fetchPage(next);
          page.catch(() => undefined);
          ahead.push({ after: next, page });
        }
        const current = ahead.shift();
        if (!current) return;
        const page = await current.page;
        checkChanges(page, after);
        yield page;
        if (!page.meta.hasMore) return;
        after = page.meta.lastSequence;
        latest = Math.max(latest, page.meta.latestSequence);
        // A page shorter than `limit` with more to come: the pages requested ahead start elsewhere.
        if (ahead[0] && ahead[0].after !== after) ahead.length = 0;
      }
    } finally {
      ahead.length = 0;
    }
  }

  return {
    baseUrl: transport.baseUrl,
    credentialId: options.credentialId,

    async introspect(actorId) {
      return (
        await call<Introspection>({
          method: "GET",
          href: `${entitlementServicePaths.introspect}${encodeURIComponent(actorId)}`,
        })
      ).body;
    },

    async *snapshot(query = {}) {
      const first = (
        await call<SnapshotPage>({
          method: "GET",
          href: entitlementServicePaths.snapshot,
          query: { limit: query.limit },
        })
      ).body;
      if (!Number.isInteger(first.asOfSequence) || !Array.isArray(first.items)) {
        throw new HanseProtocolError("the snapshot page has no asOfSequence or items");
      }
      yield first;
      let page = first;
      while (page.meta.hasMore) {
        if (page.meta.nextCursor === null) {
          throw new HanseProtocolError("a snapshot page says hasMore but gives no nextCursor");
        }
        page = (
          await call<SnapshotPage>({
            method: "GET",
            href: entitlementServicePaths.snapshot,
            query: { limit: query.limit, asOfSequence: first.asOfSequence, cursor: page.meta.nextCursor },
          })
        ).body;
        if (page.asOfSequence !== first.asOfSequence) {
          throw new HanseProtocolError("a later snapshot page answered for another asOfSequence");
        }
        yield page;
      }
    },

    changes,

    async *follow(query) {
      const pause = query.pollIntervalMs ?? 2000;
      let after = query.afterSequence;
      while (!aborted(query.signal)) {
        for await (const page of changes({ afterSequence: after, limit: query.limit })) {
          yield page;
          after = page.meta.lastSequence;
          if (aborted(query.signal)) return;
        }
        if (!(await pauseUnlessAborted(pause, query.signal))) return;
      }
    },

    async grant(actorId) {
      return (
        await call<GrantResult>({
          method: "POST",
          href: `${entitlementServicePaths.grants}${encodeURIComponent(actorId)}`,
        })
      ).body;
    },

    async jwks() {
      const answer = await transport.send<Jwks>({
        method: "GET",
        href: entitlementServicePaths.jwks,
        anonymous: true,
      });
      if (!Array.isArray((answer.body as Jwks | undefined)?.keys))
        throw new HanseProtocolError("the JWKS has no keys array");
      return answer.body;
    },
  };
}

/**
 * Changes must continue the feed exactly: each sequence is the previous one + 1, the first
 * `after + 1` (the feed is gap-free, rules/contract §5); otherwise a FeedSequenceError.
 */
export function checkSequences(changes: readonly { sequence: number }[], after: number): void {
  let previous = after;
  for (const change of changes) {
    if (change.sequence !== previous + 1) throw new FeedSequenceError(previous + 1, change.sequence);
    previous = change.sequence;
  }
}

/** A page must continue the feed and move forward, or the iteration would repeat or skip changes. */
function checkChanges(page: ChangesPage, after: number): void {
  if (
    !Array.isArray(page.items) ||
    typeof (page.meta as ChangesPage["meta"] | undefined)?.lastSequence !== "number"
  ) {
    throw new HanseProtocolError("the changes page has no items or meta.lastSequence");
  }
  checkSequences(page.items, after);
  // The next page starts after meta.lastSequence: anything else would skip or repeat changes.
  const last = page.items.at(-1)?.sequence ?? after;
  if (page.meta.lastSequence !== last) {
    throw new HanseProtocolError(
      `meta.lastSequence ${page.meta.lastSequence} is not the page's last sequence ${last}`,
    );
  }
  if (page.meta.hasMore && page.meta.lastSequence <= after) {
    throw new HanseProtocolError("a changes page says hasMore but did not move past afterSequence");
  }
}

const aborted = (signal: AbortSignal | undefined): boolean => signal?.aborted === true;

/** Waits `ms`; false when the signal aborted first (or already had). */
export async function pauseUnlessAborted(ms: number, signal: AbortSignal | undefined): Promise<boolean> {
  if (aborted(signal)) return false;
  try {
    await sleep(ms, undefined, signal ? { signal } : undefined);
    return true;
  } catch (error) {
    if (aborted(signal)) return false;
    throw error;
  }
}

// ---- rules 1–2: the feed reader --------------------------------------------------------------

export type FeedEvent =
  /** A new snapshot starts: discard everything local (rule 2 when `reason` is cursor-expired). */
  | { type: "reset"; reason: "initial" | "cursor-expired" }
  | { type: "snapshot-page"; asOfSequence: number; items: Entitlement[] }
  /** The snapshot is complete: the position is now `asOfSequence`. */
  | { type: "snapshot-complete"; asOfSequence: number }
  | { type: "changes-page"; items: EntitlementChange[]; lastSequence: number; latestSequence: number }
  /** Caught up with the feed (follow mode pauses now). */
  | { type: "idle"; position: number; latestSequence: number };

export interface FeedReaderOptions {
  client: ServiceClient;
  /** Resume after this sequence (a position persisted earlier); without it the reader starts with a snapshot. */
  afterSequence?: number | undefined;
  snapshotLimit?: number | undefined;
  changesLimit?: number | undefined;
  /** Called for every event, in order; the reader waits for a returned promise. */
  onEvent(event: FeedEvent): void | Promise<void>;
  /** Consecutive new snapshots after 410 before giving up (default 5). */
  maxRestarts?: number | undefined;
}

export interface FeedReader {
  /** The last sequence applied; undefined before the first snapshot is complete. */
  readonly position: number | undefined;
  /** Snapshot if needed, then changes until the end of the feed; returns the position. */
  catchUp(): Promise<number>;
  /** `catchUp` over and over, pausing `pollIntervalMs` (default 2 s) when idle, until `signal` aborts. */
  follow(options?: { pollIntervalMs?: number; signal?: AbortSignal }): Promise<number | undefined>;
}

/**
 * Spec C rules 1–2: the first snapshot page yields `asOfSequence`, later pages send `cursor` and
 * the same `asOfSequence`, then the changes after it in ascending order. On
 * ERR_APP_ENTITLEMENT_CURSOR_EXPIRED (from the feed or a snapshot page) the consumer is told to
 * discard what it has (`reset`) and a new snapshot starts.
 */
export function createFeedReader(options: FeedReaderOptions): FeedReader {
  let position = options.afterSequence;
  let reason: "initial" | "cursor-expired" = "initial";
  const maxRestarts = options.maxRestarts ?? 5;
  const emit = async (event: FeedEvent) => {
    await options.onEvent(event);
  };

  async function snapshot(): Promise<void> {
    await emit({ type: "reset", reason });
    let asOf: number | undefined;
    for await (const page of options.client.snapshot({ limit: options.snapshotLimit })) {
      asOf = page.asOfSequence;
      await emit({ type: "snapshot-page", asOfSequence: page.asOfSequence, items: page.items });
    }
    if (asOf === undefined) throw new HanseProtocolError("the snapshot yielded no page");
    await emit({ type: "snapshot-complete", asOfSequence: asOf });
    position = asOf;
  }

  async function catchUp(): Promise<number> {
    let restarts = 0;
    for (;;) {
      try {
        if (position === undefined) await snapshot();
        let latest = position ?? 0;
        for await (const page of options.client.changes({
          afterSequence: position ?? 0,
          limit: options.changesLimit,
        })) {
          await emit({
            type: "changes-page",
            items: page.items,
            lastSequence: page.meta.lastSequence,
            latestSequence: page.meta.latestSequence,
          });
          position = page.meta.lastSequence;
          latest = page.meta.latestSequence;
        }
        const at = position ?? 0;
        await emit({ type: "idle", position: at, latestSequence: latest });
        return at;
      } catch (error) {
        if (!(error instanceof CursorExpiredError) || restarts >= maxRestarts) throw error;
        restarts++;
        position = undefined;
        reason = "cursor-expired";
      }
    }
  }

  return {
    get position() {
      return position;
    },
    catchUp,
    async follow(follow = {}) {
      while (!aborted(follow.signal)) {
        await catchUp();
        if (!(await pauseUnlessAborted(follow.pollIntervalMs ?? 2000, follow.signal))) break;
      }
      return position;
    },
  };
}

// ---- the local projection ----------------------------------------------------------------------

export interface EntitlementProjectionOptions {
  client: ServiceClient;
  /** What `decide` requires when called without a list (e.g. the binding's required capabilities). */
  requiredCapabilities?: readonly string[] | undefined;
  /** The clock of decisions (default the system clock). */
  now?: (() => Date) | undefined;
  snapshotLimit?: number | undefined;
  changesLimit?: number | undefined;
  /** Observes the feed (progress, persistence); called after the projection applied the event. */
  onEvent?: ((event: FeedEvent) => void | Promise<void>) | undefined;
}

export interface EntitlementProjection {
  /** False until a snapshot is complete, and again from a 410 until the new one is. */
  readonly ready: boolean;
  /** The last sequence applied. */
  readonly sequence: number | undefined;
  readonly size: number;
  get(actorId: string): Entitlement | undefined;
  /** The decision of protocol/ over the local state; not ready → `entitled: false` (fail closed). */
  decide(actorId: string, requiredCapabilities?: readonly string[]): EntitlementDecision;
  /** Brings the projection up to the end of the feed. */
  sync(): Promise<number>;
  /** Keeps it up to date until `signal` aborts. */
  follow(options?: { pollIntervalMs?: number; signal?: AbortSignal }): Promise<number | undefined>;
}

/** A local projection of one app's entitlements for a standalone sync service (rules/interface C rule 4). */
export function createEntitlementProjection(options: EntitlementProjectionOptions): EntitlementProjection {
  const state = new Map<string, Entitlement>();
  let ready = false;
  const now = options.now ?? (() => new Date());
  const required = options.requiredCapabilities ?? [];

  const apply = (event: FeedEvent): void => {
    switch (event.type) {
      case "reset":
        // Rule 2: the local projection is discarded, not patched.
        state.clear();
        ready = false;
        return;
      case "snapshot-page":
        for (const item of event.items) state.set(item.actorId, item);
        return;
      case "snapshot-complete":
        ready = true;
        return;
      case "changes-page":
        for (const change of event.items) {
          if (change.entitlement) state.set(change.actorId, change.entitlement);
          else state.delete(change.actorId);
        }
        return;
      case "idle":
        return;
    }
  };

  const reader = createFeedReader({
    client: options.client,
    snapshotLimit: options.snapshotLimit,
    changesLimit: options.changesLimit,
    onEvent: async (event) => {
      apply(event);
      await options.onEvent?.(event);
    },
  });

  return {
    get ready() {
      return ready;
    },
    get sequence() {
      return reader.position;
    },
    get size() {
      return state.size;
    },
    get: (actorId) => state.get(actorId),
    decide(actorId, requiredCapabilities = required) {
      if (!ready) return { entitled: false, reason: "unknown" };
      return decideEntitlement(state.get(actorId), requiredCapabilities, now());
    },
    sync: () => reader.catchUp(),
    follow: (follow) => reader.follow(follow),
  };
}

export { createGrantVerifier, GrantVerificationError } from "./grant-verifier.js";
export type { GrantVerifier, GrantVerifierOptions, Jwk, Jwks, VerifiedGrant } from "./grant-verifier.js";
