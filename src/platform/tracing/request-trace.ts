import type { IncomingMessage } from "node:http";
import type { FastifyBaseLogger, FastifyInstance, FastifyServerOptions } from "fastify";
import { runInTrace, traceFromHeaders, traceLogFields, type TraceContext } from "./trace-context.js";

/** Each request's trace, made once with its logger (before any hook runs). */
const traces = new WeakMap<IncomingMessage, TraceContext>();

/**
 * Fastify's `childLoggerFactory`: the request's logger, whose every line (the framework's
 * "incoming request" and "request completed" among them) names the request's trace besides its
 * correlation id.
 */
export const traceChildLogger: NonNullable<FastifyServerOptions["childLoggerFactory"]> = function (
  this: FastifyInstance,
  logger: FastifyBaseLogger,
  bindings: { correlationId?: string },
  options: object,
  rawRequest: IncomingMessage,
) {
  const context = traceFromHeaders(rawRequest.headers, bindings.correlationId);
  traces.set(rawRequest, context);
  return logger.child({ ...bindings, ...traceLogFields(context) }, options);
};

/**
 * Runs each request's hooks and handler in its trace (AsyncLocalStorage), so that the jobs it
 * enqueues and the calls it makes carry it. Entered again before validation: reading the body
 * runs in the socket's context, not the request's.
 */
export function enterRequestTraces(app: FastifyInstance): void {
  const enter = (request: { raw: IncomingMessage }, done: () => void): void => {
    const context = traces.get(request.raw);
    if (context) runInTrace(context, done);
    else done();
  };
  app.addHook("onRequest", (request, _reply, done) => {
    enter(request, done);
  });
  app.addHook("preValidation", (request, _reply, done) => {
    enter(request, done);
  });
}
