import type { Problem } from "../protocol/index.js";

/** A problem+json answer of the API (rules/contract §1). Carries no credential. */
export class HanseApiError extends Error {
  override readonly name: string = "HanseApiError";
  readonly status: number;
  readonly code: string;
  readonly title: string;
  readonly detail: string;
  readonly correlationId: string | undefined;
  readonly errors: Problem["errors"];
  readonly method: string;
  readonly path: string;
  /** The answer's `Retry-After` header, when it had one (429, 503). */
  readonly retryAfter: string | undefined;

  constructor(input: {
    status: number;
    code: string;
    title: string;
    detail: string;
    correlationId: string | undefined;
    errors?: Problem["errors"];
    method: string;
    path: string;
    retryAfter?: string | undefined;
  }) {
    super(`${input.method} ${input.path} failed: ${input.status} ${input.code}: ${input.detail}`);
    this.retryAfter = input.retryAfter;
    this.status = input.status;
    this.code = input.code;
    this.title = input.title;
    this.detail = input.detail;
    this.correlationId = input.correlationId;
    this.errors = input.errors;
    this.method = input.method;
    this.path = input.path;
  }
}

export type EntrypointMissingReason = "entry" | "action" | "unusable-kind" | "status-href";

/**
 * The session was not given this entry or action (rules/interface B rules 2 and 5). This is a definitive
 * denial: the client stops instead of guessing a path.
 */
export class EntrypointMissingError extends Error {
  override readonly name = "EntrypointMissingError";
  readonly entryId: string;
  readonly actionId: string | undefined;
  readonly reason: EntrypointMissingReason;

  constructor(entryId: string, actionId: string | undefined, reason: EntrypointMissingReason, kind?: string) {
    super(describeMissing(entryId, actionId, reason, kind));
    this.entryId = entryId;
    this.actionId = actionId;
    this.reason = reason;
  }
}

function describeMissing(
  entryId: string,
  actionId: string | undefined,
  reason: EntrypointMissingReason,
  kind: string | undefined,
): string {
  switch (reason) {
    case "entry":
      return `entrypoint ${entryId} is not available to this session`;
    case "action":
      return `action ${actionId ?? "?"} of entrypoint ${entryId} is not available to this session`;
    case "unusable-kind":
      return `entrypoint ${entryId} has the unknown kind ${kind ?? "?"} and is not usable`;
    case "status-href":
      return `entrypoint ${entryId} publishes no status link for action ${actionId ?? "?"}`;
  }
}

/** The request never got an answer (connection refused or reset, time-out). */
export class HanseNetworkError extends Error {
  override readonly name = "HanseNetworkError";
  readonly method: string;
  readonly path: string;
  readonly correlationId: string;

  constructor(method: string, path: string, correlationId: string, cause: unknown) {
    super(`${method} ${path}: no answer (${networkReason(cause)})`, { cause });
    this.method = method;
    this.path = path;
    this.correlationId = correlationId;
  }
}

function networkReason(cause: unknown): string {
  if (cause instanceof Error) {
    const code = (cause as { code?: unknown }).code;
    return typeof code === "string" ? code : cause.name;
  }
  return "unknown error";
}

/** The server answered in a way the published contract does not allow. */
export class HanseProtocolError extends Error {
  override readonly name = "HanseProtocolError";
}

/**
 * The change feed broke its order (rules/contract §5: sequences are gap-free and in commit order): a
 * change whose sequence is not the previous one + 1. `gap` when it is higher (changes are
 * missing), `repeat` when it is the same or lower (a change seen again, or the feed went back).
 */
export class FeedSequenceError extends HanseProtocolError {
  readonly kind: "gap" | "repeat";
  readonly expected: number;
  readonly actual: number;

  constructor(expected: number, actual: number) {
    const kind = actual > expected ? "gap" : "repeat";
    super(
      kind === "gap"
        ? `the change feed skipped from ${expected - 1} to ${actual}`
        : `the change feed went backwards (${actual} after ${expected - 1})`,
    );
    this.kind = kind;
    this.expected = expected;
    this.actual = actual;
  }
}

/** After create, `Location` did not refer to the new tenant (rules/interface B rule 4). */
export class LocationMismatchError extends HanseProtocolError {
  readonly expected: string;
  readonly actual: string | undefined;

  constructor(expected: string, actual: string | undefined) {
    super(
      actual === undefined
        ? `the create answer carries no Location (expected ${expected})`
        : `the create answer's Location ${actual} does not refer to the new resource ${expected}`,
    );
    this.expected = expected;
    this.actual = actual;
  }
}

/** Waiting for a terminal state took longer than allowed. */
export class WaitTimeoutError extends Error {
  override readonly name = "WaitTimeoutError";
}

/**
 * `410 ERR_APP_ENTITLEMENT_CURSOR_EXPIRED` (rules/interface C rule 2): the feed no longer holds a change
 * after the requested sequence, or a snapshot's `asOfSequence` can no longer be served. Discard
 * the local projection and start again with a new snapshot.
 */
export class CursorExpiredError extends HanseApiError {
  override readonly name = "CursorExpiredError";

  constructor(error: HanseApiError) {
    super({
      status: error.status,
      code: error.code,
      title: error.title,
      detail: error.detail,
      correlationId: error.correlationId,
      errors: error.errors,
      method: error.method,
      path: error.path,
      retryAfter: error.retryAfter,
    });
  }
}
