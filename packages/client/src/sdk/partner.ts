/**
 * The partner side of the exchange over HTTP: upload one interchange; list the mailbox, claim an
 * entry, read its payload (counted and hashed, with its trailer) and acknowledge it. The
 * reference mailbox worker that stores payloads as files is partner-sync.ts. Imports only
 * protocol/.
 */
import { createHash, randomUUID } from "node:crypto";
import type { Readable } from "node:stream";
import type { request as undiciRequest } from "undici";
import { headers as headerNames } from "../protocol/index.js";
import type { ListItem, ResponseBody } from "./api.js";
import { loadUndici } from "./lazy-modules.js";

export type RequestFn = typeof undiciRequest;

export interface PartnerClientOptions {
  baseUrl: string;
  /** `<apiKeyId>:<secret>`; sent only in the Authorization header. */
  apiKey: string;
  connectionId: string;
  /** Fault injection and custom transports (tests); undici's `request` by default. */
  request?: RequestFn;
  timeoutMs?: number;
}

export type MailboxItem = ListItem<"listMailbox">;

export type Claim = ResponseBody<"claimDelivery">;

export type Receipt = ResponseBody<"acknowledgeDelivery"> & {
  /** The X-Correlation-ID of the acknowledge that returned it (client side, for logs). */
  correlationId: string;
};

export type UploadResult = ResponseBody<"createUpload", 202>;

/** An answer with a problem body: status and stable code (no secrets, no payload). */
export class PartnerApiError extends Error {
  override readonly name = "PartnerApiError";
  constructor(
    readonly status: number,
    readonly code: string,
    readonly correlationId: string,
    /** The problem's `detail`: text the server made safe to show (rules/contract §1). */
    readonly detail?: string,
  ) {
    super(`HTTP ${status} ${code} (correlation ${correlationId})`);
  }
}

/** No answer, or an answer cut off: the outcome is uncertain. */
export class PartnerNetworkError extends Error {
  override readonly name = "PartnerNetworkError";
  constructor(
    readonly correlationId: string,
    cause: unknown,
  ) {
    super(`network failure (correlation ${correlationId})`, { cause });
  }
}

export interface PayloadRead {
  bytes: number;
  sha256: string;
  expectedSize: number;
  expectedSha256: string;
  trailer: string | undefined;
  correlationId: string;
}

export function createPartnerClient(options: PartnerClientOptions) {
  const send: RequestFn = options.request ?? (async (...args) => (await loadUndici()).request(...args));
  const base = options.baseUrl.replace(/\/$/, "");
  const prefix = `${base}/api/v1/b2b-exchange/partner/connections/${encodeURIComponent(options.connectionId)}`;
  const timeout = options.timeoutMs ?? 60_000;

  async function call<T>(
    method: "GET" | "POST",
    path: string,
    extra: {
      headers?: Record<string, string>;
      body?: Buffer | Readable;
      query?: Record<string, string | number | undefined>;
    } = {},
  ): Promise<{ status: number; body: T; correlationId: string }> {
    const url = new URL(`${prefix}${path}`);
    for (const [k, v] of Object.entries(extra.query ?? {}))
      if (v !== undefined) url.searchParams.set(k, String(v));
    const correlationId = randomUUID();
    let response;
    try {
      response = await send(url, {
        method,
        headers: {
          authorization: `Bearer ${options.apiKey}`,
          accept: "application/json, application/problem+json",
          [headerNames.correlationId]: correlationId,
          ...extra.headers,
        },
        ...(extra.body === undefined ? {} : { body: extra.body }),
        signal: AbortSignal.timeout(timeout),
      });
    } catch (error) {
      throw new PartnerNetworkError(correlationId, error);
    }
    let text: string;
    try {
      text = await response.body.text();
    } catch (error) {
      throw new PartnerNetworkError(correlationId, error);
    }
    const parsed = text === "" ? undefined : (JSON.parse(text) as unknown);
    if (response.statusCode >= 400) {
      const { code, detail } = (parsed ?? {}) as { code?: unknown; detail?: unknown };
      throw new PartnerApiError(
        response.statusCode,
        typeof code === "string" ? code : `HTTP_${response.statusCode}`,
        correlationId,
        typeof detail === "string" ? detail : undefined,
      );
    }
    return { status: response.statusCode, body: parsed as T, correlationId };
  }

  return {
    connectionId: options.connectionId,

    /** Uploads one interchange; the same key and bytes replay (200, replay true). */
    async upload(
      body: Buffer | Readable,
      idempotencyKey: string,
      contentLength?: number,
    ): Promise<UploadResult & { httpStatus: number }> {
      const r = await call<UploadResult>("POST", "/inbox", {
        headers: {
          "content-type": "application/edifact",
          [headerNames.idempotencyKey]: idempotencyKey,
          ...(contentLength === undefined ? {} : { "content-length": String(contentLength) }),
        },
        body,
      });
      return { ...r.body, httpStatus: r.status };
    },

    async list(page: { limit?: number; cursor?: string } = {}) {
      const r = await call<{ items: MailboxItem[]; meta: { hasMore: boolean; nextCursor: string | null } }>(
        "GET",
        "/mailbox",
        {
          query: { limit: page.limit, cursor: page.cursor },
        },
      );
      return r.body;
    },

    async claim(deliveryAttemptId: string): Promise<Claim> {
      return (await call<Claim>("POST", `/mailbox/${encodeURIComponent(deliveryAttemptId)}/claim`)).body;
    },

    /** Streams the payload into `sink`, counting and hashing; resolves only after EOF. */
    async readPayload(
      deliveryAttemptId: string,
      claimToken: string,
      sink: (chunk: Buffer) => Promise<void>,
    ): Promise<PayloadRead> {
      const correlationId = randomUUID();
      let response;
      try {
        response = await send(`${prefix}/mailbox/${encodeURIComponent(deliveryAttemptId)}/payload`, {
          method: "GET",
          headers: {
            authorization: `Bearer ${options.apiKey}`,
            [headerNames.claimToken]: claimToken,
            [headerNames.correlationId]: correlationId,
          },
          signal: AbortSignal.timeout(timeout),
        });
      } catch (error) {
        throw new PartnerNetworkError(correlationId, error);
      }
      if (response.statusCode !== 200) {
        const text = await response.body.text().catch(() => "");
        let code = `HTTP_${response.statusCode}`;
        try {
          const parsed = JSON.parse(text) as { code?: unknown };
          if (typeof parsed.code === "string") code = parsed.code;
        } catch {
          // not a problem body
        }
        throw new PartnerApiError(response.statusCode, code, correlationId);
      }
      const hash = createHash("sha256");
      let bytes = 0;
      try {
        for await (const chunk of response.body) {
          const buffer = chunk as Buffer;
          hash.update(buffer);
          bytes += buffer.length;
          await sink(buffer);
        }
      } catch (error) {
        response.body.destroy();
        if (error instanceof LocalStorageError) throw error;
        throw new PartnerNetworkError(correlationId, error);
      }
      const header = (name: string) => {
        const value = response.headers[name];
        return Array.isArray(value) ? value[0] : value;
      };
      const trailer = response.trailers["x-b2b-payload-integrity"];
      return {
        bytes,
        sha256: hash.digest("hex"),
        expectedSize: Number(header("x-b2b-payload-size") ?? NaN),
        expectedSha256: header("x-b2b-payload-sha256") ?? "",
        trailer: (Array.isArray(trailer) ? trailer[0] : trailer) as string | undefined,
        correlationId,
      };
    },

    async acknowledge(deliveryAttemptId: string, claimToken: string): Promise<Receipt> {
      const { body, correlationId } = await call<Omit<Receipt, "correlationId">>(
        "POST",
        `/mailbox/${encodeURIComponent(deliveryAttemptId)}/acknowledge`,
        { headers: { [headerNames.claimToken]: claimToken } },
      );
      return { ...body, correlationId };
    },
  };
}

export type PartnerClient = ReturnType<typeof createPartnerClient>;

/** Writing the payload to local storage failed: never acknowledge, stop the run. */
export class LocalStorageError extends Error {
  override readonly name = "LocalStorageError";
}
