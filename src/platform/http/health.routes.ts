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
          tags: ["operations"],
          summary: "The process is up",
          response: { 200: { type: "object", properties: { status: { type: "string" } } } },
        },
      },
      async () => ({ status: "ok" }),
    );
    app.get(
      "/readyz",
      {
        config: { auth: { kind: "public" } },
        schema: {
          tags: ["operations"],
          summary: "The database answers and every migration is applied",
          response: {
            200: { type: "object", properties: { status: { type: "string" } } },
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
