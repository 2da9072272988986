import { AsyncLocalStorage } from "node:async_hooks";
import { randomIdentifierHex } from "../crypto/ids.js";

/**
 * W3C Trace Context (https://www.w3.org/TR/trace-context/): the trace a request or job belongs to.
 * Hanse records no spans of its own; it keeps the caller's trace id, gives each request and each
 * job run a span id of its own, writes both in its log lines and passes them on to the URLs it
 * calls (`traceparent`, `tracestate`).
 */
export interface TraceContext {
  /** 32 lower-case hex digits, never all zeros. */
  traceId: string;
  /** This request's or job run's span: the parent id of the calls it makes. */
  spanId: string;
  /** Two hex digits; bit 0 is `sampled`. */
  flags: string;
  /** The caller's vendor entries, passed on unchanged; undefined when none or invalid. */
  tracestate: string | undefined;
  /** The request's correlation id, carried into the jobs it enqueued. */
  correlationId: string | undefined;
  /**
   * A request's log lines carry the trace through the request's logger; a job's lines get it from
   * the process logger (`traceLogFields`), which knows no job.
   */
  origin: "request" | "job";
}

/** What a job row keeps of the context of the request that enqueued it (`jobs.trace_context`). */
export interface StoredTraceContext {
  traceparent: string;
  tracestate?: string;
  correlationId?: string;
}

const hex = /^[0-9a-f]+$/;
const zeros = /^0+$/;
// Keys and values of tracestate list members (W3C Trace Context, section 3.3.1).
const tracestateMember =
  /^(?:[a-z][a-z0-9_\-*/]{0,255}|[a-z0-9][a-z0-9_\-*/]{0,240}@[a-z][a-z0-9_\-*/]{0,13})=[\x20-\x2b\x2d-\x3c\x3e-\x7e]{0,255}[\x21-\x2b\x2d-\x3c\x3e-\x7e]$/;
const maxTracestateMembers = 32;

/** A random id of `bytes` bytes as hex; all zeros is invalid in Trace Context, so never that. */
const newId = (bytes: number): string => {
  for (;;) {
    const id = randomIdentifierHex(bytes);
    if (!zeros.test(id)) return id;
  }
};
const newSpanId = (): string => newId(8);
const newTraceId = (): string => newId(16);

/**
 * The trace id, parent id and flags of a `traceparent` header, or undefined when it is not valid
 * (the spec then says: ignore it and its `tracestate`, start a new trace). A version above 00 is
 * read by its first four fields, as the spec asks of a parser that knows only 00.
 */
export function parseTraceparent(
  value: string | undefined,
): { traceId: string; parentId: string; flags: string } | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (text.length < 55) return undefined;
  const version = text.slice(0, 2);
  if (!hex.test(version) || version === "ff") return undefined;
  if (version === "00" ? text.length !== 55 : text.length > 55 && text[55] !== "-") return undefined;
  const [, traceId, parentId, flags] = text.slice(0, 55).split("-");
  if (text[2] !== "-" || text[35] !== "-" || text[52] !== "-") return undefined;
  if (!traceId || !parentId || !flags) return undefined;
  if (traceId.length !== 32 || !hex.test(traceId) || zeros.test(traceId)) return undefined;
  if (parentId.length !== 16 || !hex.test(parentId) || zeros.test(parentId)) return undefined;
  if (flags.length !== 2 || !hex.test(flags)) return undefined;
  return { traceId, parentId, flags };
}

/** The caller's `tracestate` (several headers are one list), or undefined when it breaks the rules. */
export function parseTracestate(value: string | string[] | undefined): string | undefined {
  if (value === undefined) return undefined;
  const members = (Array.isArray(value) ? value.join(",") : value)
    .split(",")
    .map((member) => member.trim())
    .filter((member) => member !== "");
  if (members.length === 0 || members.length > maxTracestateMembers) return undefined;
  if (!members.every((member) => tracestateMember.test(member))) return undefined;
  return members.join(",");
}

/**
 * The context of an incoming request: the caller's trace when its `traceparent` is valid, a new
 * trace otherwise; a new span id either way. A trace Hanse starts is marked sampled: its log
 * lines record it.
 */
export function traceFromHeaders(
  headers: Record<string, string | string[] | undefined>,
  correlationId: string | undefined,
): TraceContext {
  const raw = headers.traceparent;
  const parent = parseTraceparent(Array.isArray(raw) ? undefined : raw);
  if (!parent) {
    return {
      traceId: newTraceId(),
      spanId: newSpanId(),
      flags: "01",
      tracestate: undefined,
      correlationId,
      origin: "request",
    };
  }
  return {
    traceId: parent.traceId,
    spanId: newSpanId(),
    flags: parent.flags,
    tracestate: parseTracestate(headers.tracestate),
    correlationId,
    origin: "request",
  };
}

/** `traceparent` naming `context`'s span as the parent of the call it goes with. */
export const formatTraceparent = (context: TraceContext): string =>
  `00-${context.traceId}-${context.spanId}-${context.flags}`;

/** The headers of an outbound call made in `context` (none outside a request or job). */
export function outboundTraceHeaders(context: TraceContext | undefined): Record<string, string> {
  if (!context) return {};
  return {
    traceparent: formatTraceparent(context),
    ...(context.tracestate ? { tracestate: context.tracestate } : {}),
  };
}

/** What a job enqueued in `context` stores, to continue the trace when it runs. */
export function storeTraceContext(context: TraceContext): StoredTraceContext {
  return {
    traceparent: formatTraceparent(context),
    ...(context.tracestate ? { tracestate: context.tracestate } : {}),
    ...(context.correlationId ? { correlationId: context.correlationId } : {}),
  };
}

/**
 * The context of a job run: the trace of the request that enqueued it with a new span id, or a
 * new trace when the job has none (recurring jobs, jobs from before the column existed).
 */
export function restoreTraceContext(stored: unknown): TraceContext {
  const record = (stored ?? {}) as Partial<StoredTraceContext>;
  const parent = parseTraceparent(typeof record.traceparent === "string" ? record.traceparent : undefined);
  return {
    traceId: parent?.traceId ?? newTraceId(),
    spanId: newSpanId(),
    flags: parent?.flags ?? "01",
    tracestate:
      parent && typeof record.tracestate === "string" ? parseTracestate(record.tracestate) : undefined,
    correlationId: typeof record.correlationId === "string" ? record.correlationId : undefined,
    origin: "job",
  };
}

const storage = new AsyncLocalStorage<TraceContext>();

/** The trace of the request or job this code runs for, if any. */
export const currentTrace = (): TraceContext | undefined => storage.getStore();

/** Runs `fn` (and everything it starts) in `context`. */
export const runInTrace = <R>(context: TraceContext, fn: () => R): R => storage.run(context, fn);

/** The fields of a log line about `context`. */
export const traceLogFields = (context: TraceContext): { traceId: string; spanId: string } => ({
  traceId: context.traceId,
  spanId: context.spanId,
});

/**
 * pino's `mixin`: a line logged while a job runs names the job's trace and the correlation id of
 * the request that enqueued it. (A request's lines have them from its own logger.)
 */
export function jobLogFields(): Record<string, string> {
  const context = storage.getStore();
  if (context?.origin !== "job") return {};
  return {
    ...traceLogFields(context),
    ...(context.correlationId ? { correlationId: context.correlationId } : {}),
  };
}
