import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";
import { errorCodes, problemType, reasonPhrases, type ErrorCode, type Problem } from "@hanse/client/protocol";
import { isDatabaseUnavailable, isUnstorableText } from "../db/errors.js";
import { AppError, type FieldError } from "../errors/app-error.js";
import { nulTextError } from "./json-text.js";
import { lingerAfterAnswer } from "./lingering-close.js";
import { describeErrors } from "./validation-messages.js";

const defaultDetail: Partial<Record<ErrorCode, string>> = {
  ERR_UNAUTHENTICATED: "Valid credentials are required.",
  ERR_FORBIDDEN: "The credential lacks a required scope.",
  ERR_NOT_FOUND: "No such resource.",
  ERR_PAYLOAD_TOO_LARGE: "The request body exceeds the limit of this endpoint.",
  ERR_INTERNAL: "Internal error",
  ERR_UNAVAILABLE: "The service is temporarily unavailable.",
};

export function problemBody(
  code: ErrorCode,
  correlationId: string,
  detail?: string,
  errors?: FieldError[],
): Problem {
  const status = errorCodes[code];
  return {
    type: problemType(code),
    title: reasonPhrases[status] ?? "Error",
    status,
    code,
    detail: detail ?? defaultDetail[code] ?? reasonPhrases[status] ?? "Error",
    correlationId,
    ...(errors ? { errors } : {}),
  };
}

/** Areas that answer with their own codes (the partner exchange) map the generic ones here. */
export type ErrorCodeMapper = (code: ErrorCode) => ErrorCode;

/**
 * The rest of this request's body will not be read: answer with `Connection: close`, and close
 * by lingering, so that a client still writing reads the answer instead of a reset (rules/contract §1).
 */
export function closeAfterAnswer(reply: FastifyReply): void {
  reply.header("connection", "close");
  lingerAfterAnswer(reply.raw.socket);
}

export function sendProblem(reply: FastifyReply, error: AppError): FastifyReply {
  const mapped = (reply.request.routeOptions.config as { mapErrorCode?: ErrorCodeMapper }).mapErrorCode;
  const code = mapped ? mapped(error.code) : error.code;
  const body = problemBody(code, reply.request.id, error.detail, error.extra.errors);
  if (code === "ERR_UNAUTHENTICATED" || code === "ERR_B2B_EXCHANGE_UNAUTHENTICATED") {
    reply.header("www-authenticate", 'Bearer realm="hanse"');
  } else if (code.startsWith("ERR_SERVICE_AUTH_")) {
    reply.header("www-authenticate", 'PlatformService realm="hanse"');
  }
  if (body.status === 503 && !error.extra.headers?.["retry-after"]) reply.header("retry-after", "5");
  if (body.status === 413) {
    // The spec names RFC 7231's reason phrase (Node would send "Payload Too Large"), and the
    // rest of an oversized body is not read: answer, then close.
    reply.raw.statusMessage = body.title;
    closeAfterAnswer(reply);
  }
  for (const [name, value] of Object.entries(error.extra.headers ?? {})) reply.header(name, value);
  return reply.code(body.status).type("application/problem+json").send(body);
}

/**
 * The pointer of a validation error, cut before the first member name the schema does not
 * declare: an unknown field or a key of a free-form map is the caller's text, and an error
 * answer never repeats the request (issue 20). Array indexes and declared names stay.
 */
function declaredPointer(instancePath: string, schemaPath: string, missing?: string): string {
  const schemaSegments = schemaPath.split("/");
  const declared = new Set(schemaSegments.filter((_, i) => schemaSegments[i - 1] === "properties"));
  const kept: string[] = [];
  for (const segment of instancePath.split("/").slice(1)) {
    if (!/^\d+$/.test(segment) && !declared.has(segment)) break;
    kept.push(segment);
  }
  if (missing !== undefined && kept.length === instancePath.split("/").length - 1) kept.push(missing);
  return kept.map((segment) => `/${segment}`).join("");
}

const maxFieldErrors = 20;

/** The member a pointer names, as a message's subject: `directory`, `capabilities[1]`, `value`. */
function subject(pointer: string): string {
  const segments = pointer.split("/").slice(1);
  let i = segments.length;
  while (i > 0 && /^\d+$/.test(segments[i - 1] ?? "")) i--;
  const name = i > 0 ? (segments[i - 1] ?? "") : "value";
  return (
    name +
    segments
      .slice(i)
      .map((index) => `[${index}]`)
      .join("")
  );
}

/** Translates Fastify's validation errors into `ERR_VALIDATION` with JSON pointers. */
function validationError(error: FastifyError): AppError {
  // A path parameter names a resource: one that cannot even be an id names none (as an unknown id).
  if (error.validationContext === "params") return new AppError("ERR_NOT_FOUND", "No such resource.");
  // Pointers name the request's parts as users do: `/query/limit`, `/params/id`, `/headers/x-…`.
  const context = error.validationContext === "querystring" ? "query" : (error.validationContext ?? "body");
  // The first few problems are enough to correct a request; a body of 90,000 unknown fields must
  // not be answered with 90,000 pointers (nor with one per unknown field: they share a pointer).
  const errors = new Map<string, FieldError>();
  for (const { at, message } of describeErrors(error.validation ?? [])) {
    if (errors.size >= maxFieldErrors) break;
    const params = at.params as { missingProperty?: string };
    const pointer = declaredPointer(at.instancePath, at.schemaPath, params.missingProperty);
    // An unknown field is the caller's text: it is not repeated, not even as a subject.
    const text = at.keyword === "additionalProperties" ? message : `${subject(pointer)} ${message}`;
    const field = { pointer: context === "body" ? pointer : `/${context}${pointer}`, message: text };
    errors.set(`${field.pointer}\n${text}`, field);
  }
  return new AppError("ERR_VALIDATION", `The request ${context} is invalid.`, {
    errors: [...errors.values()],
  });
}

/** Library errors are mapped by their `code`, never by message text. */
export function toAppError(error: unknown): AppError | undefined {
  if (error instanceof AppError) return error;
  const fastifyError = error as FastifyError;
  if (fastifyError.validation) return validationError(fastifyError);
  // A value PostgreSQL cannot store (a NUL in a query string, say) is bad input, not a failure.
  if (isUnstorableText(error)) return nulTextError();
  if (isDatabaseUnavailable(error)) {
    return new AppError("ERR_UNAVAILABLE", "The database is unavailable; retry with backoff.");
  }
  switch (fastifyError.code) {
    case "FST_ERR_BAD_URL":
      return new AppError("ERR_VALIDATION", "The request path is not valid percent-encoded UTF-8.", {
        errors: [{ pointer: "/path", message: "invalid percent-encoding" }],
      });
    case "FST_ERR_MAX_PARAM_LENGTH":
      return new AppError("ERR_URI_TOO_LONG", "A path segment is longer than this server accepts.");
    case "FST_ERR_CTP_BODY_TOO_LARGE":
      return new AppError("ERR_PAYLOAD_TOO_LARGE");
    case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
      // rules/contract §1 lists no 415: a body of another type is a request the client must correct.
      return new AppError("ERR_VALIDATION", "The Content-Type is not accepted by this endpoint.", {
        errors: [{ pointer: "/headers/content-type", message: "not a media type this endpoint accepts" }],
      });
    case "FST_ERR_CTP_INVALID_JSON_BODY":
    case "FST_ERR_CTP_INVALID_CONTENT_LENGTH":
      return new AppError("ERR_VALIDATION", "The request body is not valid JSON.", {
        errors: [{ pointer: "", message: "malformed JSON" }],
      });
  }
  if (
    fastifyError.statusCode === 400 &&
    typeof fastifyError.code === "string" &&
    fastifyError.code.startsWith("FST_")
  ) {
    return new AppError("ERR_VALIDATION", "The request is malformed.");
  }
  return undefined;
}

/** Errors of a request body whose client closed the connection before sending all of it. */
const clientAbortCodes = new Set(["ECONNRESET", "ECONNABORTED", "ERR_STREAM_PREMATURE_CLOSE"]);

function isClientAbort(error: unknown, request: FastifyRequest): boolean {
  const code = (error as { code?: unknown }).code;
  const aborted =
    (typeof code === "string" && clientAbortCodes.has(code)) || (error as Error).message === "aborted";
  // The client's socket is gone. A request stream that ended is destroyed too once read, and a
  // lost database connection also fails with ECONNRESET: that is a 503, not the client's abort.
  return aborted && request.raw.socket.destroyed;
}

export function handleError(error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  // Nobody is left to answer, and nothing failed on our side: a fact for the log, not an error.
  if (isClientAbort(error, request)) {
    request.log.info("the client closed the connection before its request body ended");
    return sendProblem(reply, new AppError("ERR_VALIDATION", "The request body ended early."));
  }
  const appError = toAppError(error);
  if (appError) {
    if (appError.status >= 500) request.log.error({ err: error }, "request failed");
    return sendProblem(reply, appError);
  }
  request.log.error({ err: error }, "unhandled error");
  return sendProblem(reply, new AppError("ERR_INTERNAL"));
}
