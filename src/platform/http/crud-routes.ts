import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { Static, TObject, TSchema } from "@sinclair/typebox";
import type { FastifySchema } from "fastify";
import type { Scope } from "@hanse/client/protocol";
import type { ListOrder } from "../db/creation-order.js";
import { requirePrincipal, type AuthRequirement, type Principal } from "../auth/index.js";
import { PageQuery, problemResponses } from "./openapi-schemas.js";

type TypeBoxApp = Parameters<FastifyPluginAsyncTypebox>[0];

/** What a list route hands its service: the page size (50 unless asked), the cursor and the order. */
export interface PageRequest {
  limit: number;
  cursor: string | undefined;
  order: ListOrder;
}

/** What a newest-first log's description says about paging (it has no `order`). */
export const logPagedDescription =
  "Paged with `limit` (1–100, default 50) and the opaque `cursor` of the previous page's `meta.nextCursor`.";

/** What every list route's description says about paging. */
export const pagedDescription =
  "Paged with `limit` (1–100, default 50) and the opaque `cursor` of the previous page's `meta.nextCursor`; `order=desc` lists newest first.";

/** An operation's documentation; the operationId is part of the API and never changes. */
interface Documented {
  operationId?: string;
  summary?: string;
  description?: string;
}

/** The routes of one admin collection; each of the three is optional. */
export interface CollectionRoutes<
  Query extends TObject,
  List extends TSchema,
  Body extends TSchema,
  Created extends TSchema,
  Params extends TObject,
  Item extends TSchema,
> {
  /** The collection, e.g. `/api/v1/admin/partners`; an item is `${path}/:<its one parameter>`. */
  path: string;
  tags: string[];
  scopes: { read: Scope; write: Scope };
  /** `GET path`: a page `{ items, meta: { hasMore, nextCursor } }`. */
  list?: Documented & {
    /** Defaults to `PageQuery`; a wider query must still carry `limit` and `cursor`. */
    query?: Query;
    response: List;
    run(principal: Principal, page: PageRequest, query: Static<Query>): Promise<Static<List>>;
  };
  /** `POST path`: 201 with the created item. */
  create?: Documented & {
    body: Body;
    response: Created;
    /** The route documents 409 (the service throws `ERR_CONFLICT`). */
    conflict?: boolean;
    run(principal: Principal, body: Static<Body>): Promise<Static<Created>>;
  };
  /** `GET path/:param`: one item, 404 when absent. */
  read?: Documented & {
    params: Params;
    response: Item;
    run(principal: Principal, params: Static<Params>): Promise<Static<Item>>;
  };
}

/**
 * Registers the list, create and read routes of an admin collection, in that order, with the same
 * auth declaration, OpenAPI tags, summaries and problem responses as written out by hand.
 */
export function registerCollectionRoutes<
  Query extends TObject = typeof PageQuery,
  List extends TSchema = TSchema,
  Body extends TSchema = TSchema,
  Created extends TSchema = TSchema,
  Params extends TObject = TObject,
  Item extends TSchema = TSchema,
>(app: TypeBoxApp, routes: CollectionRoutes<Query, List, Body, Created, Params, Item>): void {
  const { path, tags, scopes, list, create, read } = routes;
  // The callbacks are typed by the collection's schemas, so the route itself needs no inference:
  // its schema is a plain `FastifySchema`, with the keys in the order of the hand-written routes.
  const options = (
    scope: Scope,
    { operationId, summary, description }: Documented,
    schema: FastifySchema,
  ): { config: { auth: AuthRequirement }; schema: FastifySchema } => ({
    config: { auth: { kind: "session", allScopes: [scope] } },
    schema: {
      ...(operationId === undefined ? {} : { operationId }),
      tags,
      ...(summary === undefined ? {} : { summary }),
      ...(description === undefined ? {} : { description }),
      ...schema,
    },
  });

  if (list) {
    app.get(
      path,
      options(scopes.read, list, {
        querystring: list.query ?? PageQuery,
        response: { 200: list.response, ...problemResponses(400, 401, 403, 500, 503) },
      }),
      async (request) => {
        const query = request.query as Static<Query> & { limit?: number; cursor?: string; order?: ListOrder };
        const page = { limit: query.limit ?? 50, cursor: query.cursor, order: query.order ?? "asc" };
        return list.run(requirePrincipal(request), page, query);
      },
    );
  }
  if (create) {
    const conflict = create.conflict ? [409] : [];
    app.post(
      path,
      options(scopes.write, create, {
        body: create.body,
        response: { 201: create.response, ...problemResponses(400, 401, 403, ...conflict, 413, 500, 503) },
      }),
      async (request, reply) =>
        reply.code(201).send(await create.run(requirePrincipal(request), request.body as Static<Body>)),
    );
  }
  if (read) {
    const [param, ...others] = Object.keys(read.params.properties);
    if (param === undefined || others.length > 0) throw new Error(`${path}: an item has one path parameter`);
    app.get(
      `${path}/:${param}`,
      options(scopes.read, read, {
        params: read.params,
        response: { 200: read.response, ...problemResponses(400, 401, 403, 404, 500, 503) },
      }),
      async (request) => read.run(requirePrincipal(request), request.params as Static<Params>),
    );
  }
}
