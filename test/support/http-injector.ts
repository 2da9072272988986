import type { InjectOptions, LightMyRequestResponse } from "fastify";
import { request } from "undici";

/**
 * An `inject` that sends the request over a real port (the server listening at `base`): the
 * exchange fixtures and other `inject` helpers then drive the server over HTTP. Answers carry
 * what those helpers read: status, headers, the body as text, bytes and JSON.
 */
export function overHttp(base: () => string) {
  return {
    async inject(options: InjectOptions): Promise<LightMyRequestResponse> {
      const { payload } = options;
      const json = payload !== undefined && typeof payload !== "string" && !Buffer.isBuffer(payload);
      const r = await request(`${base()}${typeof options.url === "string" ? options.url : ""}`, {
        method: options.method ?? "GET",
        headers: {
          ...(json ? { "content-type": "application/json" } : {}),
          ...(options.headers as Record<string, string>),
        },
        body: json ? JSON.stringify(payload) : payload,
      });
      const raw = Buffer.from(await r.body.arrayBuffer());
      return {
        statusCode: r.statusCode,
        headers: r.headers,
        rawPayload: raw,
        body: raw.toString("utf8"),
        json: () => JSON.parse(raw.toString("utf8")) as unknown,
      } as unknown as LightMyRequestResponse;
    },
  };
}
