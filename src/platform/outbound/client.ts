import { readFileSync } from "node:fs";
import type { LookupAddress } from "node:dns";
import { createSecureContext, rootCertificates, type SecureContext } from "node:tls";
import { Agent, request } from "undici";
import { currentTrace, outboundTraceHeaders } from "../tracing/index.js";
import {
  checkTargetUrl,
  classifyOutboundError,
  OutboundError,
  resolveTargetHost,
  type HostLookup,
} from "@hanse/client/protocol";

export interface OutboundResponse {
  status: number;
  /** `Retry-After` in milliseconds, when the answer carried a usable one. */
  retryAfterMs: number | undefined;
  latencyMs: number;
}

export interface OutboundClientOptions {
  /** Local testing only (HANSE_WEBHOOK_ALLOW_PRIVATE): private and loopback targets allowed. */
  allowPrivate: boolean;
  /** Local testing of single sign-on only (HANSE_SSO_ALLOW_INSECURE): `http` URLs allowed. */
  allowHttp?: boolean;
  /** Local testing only (HANSE_WEBHOOK_CA_FILE): a PEM bundle trusted besides the system's roots. */
  caFile?: string | undefined;
  /**
   * How host names resolve: the system's resolver, or a test's stub (DNS rebinding); every
   * address it returns is checked at every call.
   */
  lookup?: HostLookup | undefined;
  connectTimeoutMs?: number;
  now?: () => number;
}

/** A response body is read no further than this (the status is what counts). */
const maxResponseBytes = 4096;

/** The answer of `call`: a JSON-sized body, read whole up to the caller's limit. */
export interface OutboundReply {
  status: number;
  contentType: string | undefined;
  body: string;
}

function retryAfterMs(value: string | string[] | undefined, now: number): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined) return undefined;
  if (/^[0-9]{1,9}$/.test(text.trim())) return Number(text.trim()) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * The one HTTP client for calls to customers' URLs (webhooks, lifecycle adapters): HTTPS only,
 * no userinfo, no redirects followed, every resolved address checked at every call, and the
 * connection made to exactly the checked address (the agent's lookup returns it), so that DNS
 * rebinding cannot reach a blocked address. The current trace goes along (`traceparent`).
 * Time-outs bound connect and the whole exchange; a response body is read no further than a few KiB.
 */
export function createOutboundClient(options: OutboundClientOptions) {
  const now = options.now ?? Date.now;
  /**
   * With a CA file, one TLS context that trusts it besides the system's roots, made on first use:
   * a `ca` option instead would make a context per connection, parsing every root certificate
   * again (tens of milliseconds of CPU on a busy machine).
   */
  let context: SecureContext | undefined;
  const trusted = (): SecureContext | undefined => {
    if (options.caFile === undefined) return undefined;
    context ??= createSecureContext({ ca: [...rootCertificates, readFileSync(options.caFile, "utf8")] });
    return context;
  };

  /**
   * Keep-alive agents per origin and checked address: a connection is only ever made to the
   * address its agent was made for, so reuse keeps the pinning; a host that resolves elsewhere
   * next time gets another agent. At most `maxAgents`, the oldest closed first.
   */
  const agents = new Map<string, Agent>();
  const maxAgents = 64;
  function agentFor(url: URL, address: LookupAddress, timeoutMs: number): Agent {
    const key = `${url.origin}|${address.address}`;
    let agent = agents.get(key);
    if (agent) {
      agents.delete(key);
      agents.set(key, agent);
      return agent;
    }
    const secureContext = trusted();
    agent = new Agent({
      keepAliveTimeout: 10_000,
      connect: {
        timeout: options.connectTimeoutMs ?? Math.min(timeoutMs, 10_000),
        ...(secureContext ? { secureContext } : {}),
        lookup: (
          _host: string,
          lookupOptions: { all?: boolean },
          callback: (error: Error | null, address: string | LookupAddress[], family?: number) => void,
        ) => {
          if (lookupOptions.all) callback(null, [address]);
          else callback(null, address.address, address.family);
        },
      },
    });
    agents.set(key, agent);
    if (agents.size > maxAgents) {
      const [oldest] = agents;
      if (oldest) {
        agents.delete(oldest[0]);
        void oldest[1].close().catch(() => undefined);
      }
    }
    return agent;
  }

  return {
    /**
     * A customer's URL as registered (a webhook subscription, a lifecycle adapter): the URL's
     * rules and every address its host resolves to now; throws OutboundTargetError.
     */
    async checkTarget(rawUrl: string): Promise<URL> {
      const url = checkTargetUrl(rawUrl, options.allowHttp);
      await resolveTargetHost(url.hostname, options.allowPrivate, options.lookup);
      return url;
    },

    /**
     * A request whose answer the caller reads (an identity provider's discovery document, keys,
     * token endpoint): the same checks and pinning as `post`; a body longer than `maxBytes` fails
     * as `protocol`. Throws OutboundError.
     */
    async call(
      rawUrl: string,
      init: { method: "GET" | "POST"; headers?: Record<string, string>; body?: string },
      timeoutMs: number,
      maxBytes = 256 * 1024,
    ): Promise<OutboundReply> {
      const signal = AbortSignal.timeout(timeoutMs);
      try {
        const url = checkTargetUrl(rawUrl, options.allowHttp);
        const [address] = await resolveTargetHost(url.hostname, options.allowPrivate, options.lookup);
        if (!address) throw new OutboundError("dns", "the host name does not resolve");
        const response = await request(url, {
          method: init.method,
          dispatcher: agentFor(url, address, timeoutMs),
          signal,
          headers: {
            ...init.headers,
            ...outboundTraceHeaders(currentTrace()),
            ...(init.body === undefined ? {} : { "content-length": String(Buffer.byteLength(init.body)) }),
          },
          ...(init.body === undefined ? {} : { body: init.body }),
          headersTimeout: timeoutMs,
          bodyTimeout: timeoutMs,
        });
        const chunks: Buffer[] = [];
        let read = 0;
        for await (const chunk of response.body) {
          read += (chunk as Buffer).length;
          if (read > maxBytes) {
            response.body.destroy();
            throw new OutboundError("protocol", "the answer is too long");
          }
          chunks.push(chunk as Buffer);
        }
        const contentType = response.headers["content-type"];
        return {
          status: response.statusCode,
          contentType: Array.isArray(contentType) ? contentType[0] : contentType,
          body: Buffer.concat(chunks).toString("utf8"),
        };
      } catch (error) {
        throw classifyOutboundError(error);
      }
    },

    async close(): Promise<void> {
      const all = [...agents.values()];
      agents.clear();
      await Promise.allSettled(all.map((a) => a.close()));
    },

    async post(
      rawUrl: string,
      body: string,
      headers: Record<string, string>,
      timeoutMs: number,
    ): Promise<OutboundResponse> {
      const started = now();
      const signal = AbortSignal.timeout(timeoutMs);
      try {
        const url = checkTargetUrl(rawUrl, options.allowHttp);
        const [address] = await resolveTargetHost(url.hostname, options.allowPrivate, options.lookup);
        if (!address) throw new OutboundError("dns", "the host name does not resolve");
        const agent = agentFor(url, address, timeoutMs);
        const response = await request(url, {
          method: "POST",
          dispatcher: agent,
          signal,
          // The request's or job's trace goes on to the customer's URL (W3C traceparent, tracestate).
          headers: {
            ...headers,
            ...outboundTraceHeaders(currentTrace()),
            "content-length": String(Buffer.byteLength(body)),
          },
          body,
          headersTimeout: timeoutMs,
          bodyTimeout: timeoutMs,
        });
        let read = 0;
        for await (const chunk of response.body) {
          read += (chunk as Buffer).length;
          if (read >= maxResponseBytes) break;
        }
        response.body.destroy();
        return {
          status: response.statusCode,
          retryAfterMs: retryAfterMs(response.headers["retry-after"], now()),
          latencyMs: now() - started,
        };
      } catch (error) {
        throw classifyOutboundError(error);
      }
    },
  };
}

export type OutboundClient = ReturnType<typeof createOutboundClient>;
