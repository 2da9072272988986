import type { FastifyInstance, FastifyPluginAsync } from "fastify";

const escape = (value: unknown): string => String(value).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

interface Operation {
  summary?: string;
  description?: string;
  tags?: string[];
  security?: unknown[];
  responses?: Record<string, { description?: string }>;
}

/** A server-rendered API reference generated from the same OpenAPI document; no client assets. */
function renderReference(document: {
  info: { title: string; version: string };
  paths?: Record<string, Record<string, Operation>>;
}): string {
  const rows: string[] = [];
  for (const [path, methods] of Object.entries(document.paths ?? {})) {
    for (const [method, op] of Object.entries(methods)) {
      const statuses = Object.entries(op.responses ?? {})
        .map(([status, r]) => `<li><code>${escape(status)}</code> ${escape(r.description ?? "")}</li>`)
        .join("");
      rows.push(`<section><h3><span class="m">${escape(method.toUpperCase())}</span> <code>${escape(path)}</code></h3>
<p>${escape(op.summary ?? "")}</p>${op.description ? `<p>${escape(op.description)}</p>` : ""}
<p>Auth: ${op.security && op.security.length > 0 ? "bearer credential" : "none"}</p><ul>${statuses}</ul></section>`);
    }
  }
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escape(document.info.title)} API reference</title>
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem}section{border-top:1px solid #ddd;padding:.5rem 0}.m{font-weight:700;color:#05c}code{font-size:.95em}</style></head>
<body><h1>${escape(document.info.title)} ${escape(document.info.version)}</h1><p>Machine-readable: <a href="/openapi.json">/openapi.json</a> (OpenAPI 3.1). Errors are <code>application/problem+json</code>.</p>${rows.join("\n")}</body></html>`;
}

export const docsRoutes =
  (root: FastifyInstance): FastifyPluginAsync =>
  async (app) => {
    app.get(
      "/openapi.json",
      { config: { auth: { kind: "public" } }, schema: { hide: true } },
      async (_request, reply) => reply.type("application/json").send(root.swagger()),
    );
    app.get(
      "/docs",
      { config: { auth: { kind: "public" } }, schema: { hide: true } },
      async (_request, reply) =>
        reply
          .type("text/html; charset=utf-8")
          .header("content-security-policy", "default-src 'none'; style-src 'unsafe-inline'")
          .send(renderReference(root.swagger() as never)),
    );
  };
