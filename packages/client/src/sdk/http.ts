import { randomUUID } from "node:crypto";
import { headers as headerNames, type Problem } from "../protocol/index.js";
import { HanseApiError, HanseNetworkError, HanseProtocolError } from "./errors.js";
import { sendRequest, type RawAnswer } from "./http-request.js";

export interface TransportOptions {
  baseUrl: string;
  token?: string | undefined;
  /** Time limit of one request, answer body included. Default 30 s. */
  fetchTimeoutMs?: number | undefined;
}

export interface SendInput {
  method: string;
  /** A published href (absolute path or URL of the same origin). */
  href: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  headers?: Record<string, string>;
  /** Send without the bearer token (public endpoints). */
  anonymous?: boolean;
  /** The answer's body is bytes (a Buffer), not JSON; a problem answer is still parsed. */
  binary?: boolean;
  /**
   * Extra headers computed from the request exactly as it goes out (method, path with its query as
   * sent, body bytes): signed service requests (rules/contract §5). Called once per `send`.
   */
  sign?: (request: { method: string; target: string; body: string }) => Record<string, string>;
}

export interface Answer<T = unknown> {
  status: number;
  headers: Record<string, string | undefined>;
  body: T;
  correlationId: string;
}

export interface Transport {
  readonly baseUrl: string;
  readonly authenticated: boolean;
  /** Sends one request; a problem answer (status ≥ 400) throws HanseApiError. */
  send<T>(input: SendInput): Promise<Answer<T>>;
  /** Resolves a published href against the base URL; refuses another origin. */
  resolve(href: string): URL;
}

export function createTransport(options: TransportOptions): Transport {
  const base = new URL(options.baseUrl);
  if (base.protocol !== "http:" && base.protocol !== "https:") {
    throw new TypeError("baseUrl must be an http or https URL");
  }
  const timeoutMs = options.fetchTimeoutMs ?? 30_000;
  const token = options.token;

  const resolve = (href: string): URL => {
    const url = new URL(href, base);
    // The bearer token must never travel to a host the user did not choose.
    if (url.origin !== base.origin) {
      throw new HanseProtocolError(`refusing to follow a link to another origin (${url.origin})`);
    }
    return url;
  };

  return {
    baseUrl: base.origin + base.pathname.replace(/\/$/, ""),
    authenticated: token !== undefined,
    resolve,
    async send<T>(input: SendInput): Promise<Answer<T>> {
      const url = resolve(input.href);
      for (const [name, value] of Object.entries(input.query ?? {})) {
        if (value !== undefined) url.searchParams.set(name, String(value));
      }
      const correlationId = randomUUID();
      const requestHeaders: Record<string, string> = {
        accept: input.binary ? "*/*, application/problem+json" : "application/json, application/problem+json",
        [headerNames.correlationId]: correlationId,
        ...input.headers,
      };
      if (token !== undefined && input.anonymous !== true) requestHeaders.authorization = `Bearer ${token}`;
      let payload: string | undefined;
      if (input.body !== undefined) {
        payload = JSON.stringify(input.body);
        requestHeaders["content-type"] = "application/json";
      }
      const method = input.method.toUpperCase();
      const path = url.pathname;
      if (input.sign) {
        Object.assign(
          requestHeaders,
          input.sign({ method, target: `${url.pathname}${url.search}`, body: payload ?? "" }),
        );
      }
      let answer: RawAnswer;
      try {
        answer = await sendRequest(url, { method, headers: requestHeaders, body: payload, timeoutMs });
      } catch (error) {
        throw new HanseNetworkError(method, path, correlationId, error);
      }
      const { status, headers: answerHeaders, body: bytes } = answer;
      const answeredId = answerHeaders[headerNames.correlationId] ?? correlationId;
      const binary = input.binary === true && status < 400;
      const parsed = binary ? bytes : parseJson(bytes.toString("utf8"));
      if (status >= 400) {
        throw toApiError(status, parsed, answeredId, method, path, answerHeaders);
      }
      return {
        status,
        headers: answerHeaders,
        body: parsed as T,
        correlationId: answeredId,
      };
    },
  };
}

function parseJson(text: string): unknown {
  if (text === "") return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const stringField = (value: Record<string, unknown>, name: string): string | undefined =>
  typeof value[name] === "string" ? value[name] : undefined;

function toApiError(
  status: number,
  body: unknown,
  correlationId: string,
  method: string,
  path: string,
  answerHeaders: Record<string, string | undefined>,
): HanseApiError {
  const problem = isRecord(body) ? body : {};
  const errors = Array.isArray(problem.errors) ? (problem.errors as Problem["errors"]) : undefined;
  return new HanseApiError({
    status,
    code: stringField(problem, "code") ?? `HTTP_${status}`,
    title: stringField(problem, "title") ?? "",
    detail: stringField(problem, "detail") ?? "The server gave no details.",
    correlationId: stringField(problem, "correlationId") ?? correlationId,
    errors,
    method,
    path,
    retryAfter: answerHeaders[headerNames.retryAfter],
  });
}

/**
 * `Retry-After` in milliseconds (delay-seconds or an HTTP date), clamped to [min, max];
 * `fallbackMs` when the header is absent or unreadable.
 */
export function retryAfterMs(
  value: string | undefined,
  options: { fallbackMs: number; minMs?: number; maxMs?: number; now?: number },
): number {
  const min = options.minMs ?? 0;
  const max = options.maxMs ?? 60_000;
  let ms = options.fallbackMs;
  if (value !== undefined && value.trim() !== "") {
    const trimmed = value.trim();
    if (/^\d+$/.test(trimmed)) ms = Number(trimmed) * 1000;
    else {
      const date = Date.parse(trimmed);
      if (!Number.isNaN(date)) ms = date - (options.now ?? Date.now());
    }
  }
  return Math.min(max, Math.max(min, ms));
}
