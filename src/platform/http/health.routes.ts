import type { FastifyPluginAsync } from "fastify";
import { problemResponses } from "./openapi-schemas.js";
import { AppError } from "../errors/app-error.js";

export const healthRoutes =
  (deps: { ready: () => Promise<boolean> }): FastifyPluginAsync =>
  async (app) => {
    app.get(
      "/healthz",
      {
        config: { auth: { kind: "public" } },
        schema: {
          operationId: "checkLiveness",
          tags: ["operations"],
          summary: "The process is up",
          description: "Answers 200 while the process runs, whatever the database does; for liveness probes.",
          response: {
            200: {
              type: "object",
              properties: { status: { type: "string", enum: ["ok"] } },
              examples: [{ status: "ok" }],
            },
          },
        },
      },
      async () => ({ status: "ok" }),
    );
    app.get(
      "/readyz",
      {
        config: { auth: { kind: "public" } },
        schema: {
          operationId: "checkReadiness",
          tags: ["operations"],
          summary: "The database answers and every migration is applied",
          description:
            "200 when the database answers and every migration is applied, else 503 ERR_UNAVAILABLE with " +
            "Retry-After; for readiness probes and load balancers.",
          response: {
            200: {
              type: "object",
              properties: { status: { type: "string", enum: ["ready"] } },
              examples: [{ status: "ready" }],
            },
            ...problemResponses(503),
          },
        },
      },
      async () => {
        let ready = false;
        try {
          ready = await deps.ready();
        } catch {
          ready = false;
        }
        if (!ready) throw new AppError("ERR_UNAVAILABLE", "The database is not ready.");
        return { status: "ready" };
      },
    );
  };
