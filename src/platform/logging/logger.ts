import { pino, type Logger, type LoggerOptions } from "pino";
import { jobLogFields } from "../tracing/index.js";

/** Header names that carry credentials; never logged. */
export const credentialHeaders = [
  "authorization",
  "cookie",
  "set-cookie",
  "x-b2b-claim-token",
  "x-platform-service-credential",
  "x-platform-service-timestamp",
  "x-platform-service-nonce",
  "x-platform-service-signature",
  "idempotency-key",
  "x-idempotency-key",
  "webhook-signature",
];

/** A field whose name says it holds a secret is replaced at any depth. */
export const secretFieldPattern =
  /pass(word)?|secret|token|api[-_]?key|authorization|cookie|signature|credential|idempotency[-_]?key|private[-_]?key|nonce/i;

const redacted = "[redacted]";

/**
 * Properties database drivers attach to their errors with the statement and its values (PGlite
 * attaches `query`, `params` and `queryOptions` to every error): a value may be a password hash,
 * payload bytes or a token hash, so they never reach a log line.
 */
const statementFields = ["params", "parameters", "values", "query", "queryOptions"];

/** pino's error serializer, without the statement a failed query carried. */
export function serializeError(error: unknown): unknown {
  if (!(error instanceof Error)) return error;
  const serialized: Record<string, unknown> = pino.stdSerializers.err(error);
  return Object.fromEntries(Object.entries(serialized).filter(([key]) => !statementFields.includes(key)));
}

export function scrubSecrets(value: unknown, depth = 0): unknown {
  if (depth > 8 || value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((item) => scrubSecrets(item, depth + 1));
  // Only plain objects are rewritten; requests, errors and buffers have their own serializers.
  const prototype: unknown = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    out[key] = secretFieldPattern.test(key) ? redacted : scrubSecrets(item, depth + 1);
  }
  return out;
}

export function loggerOptions(level: string): LoggerOptions {
  return {
    level,
    // A job's lines carry the trace and correlation id of the request that enqueued it.
    mixin: jobLogFields,
    redact: {
      paths: [
        ...credentialHeaders.map((h) => `req.headers["${h}"]`),
        ...credentialHeaders.map((h) => `res.headers["${h}"]`),
      ],
      censor: redacted,
    },
    formatters: {
      log: (object) => scrubSecrets(object) as Record<string, unknown>,
    },
    serializers: {
      // Only what an operator needs; never headers or bodies.
      req: (req: { method?: unknown; url?: unknown; routeOptions?: { url?: string } }) => ({
        method: req.method,
        url: typeof req.url === "string" ? req.url.split("?")[0] : undefined,
        route: req.routeOptions?.url,
      }),
      res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
      err: serializeError,
      error: serializeError,
    },
  };
}

/** The process logger; tests pass a stream to capture every line. */
export function createLogger(level: string, stream?: NodeJS.WritableStream): Logger {
  return stream ? pino(loggerOptions(level), stream) : pino(loggerOptions(level));
}
