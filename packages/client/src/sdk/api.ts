/**
 * The API's shapes, from the generated types of /openapi.json (api.generated.ts, `npm run
 * generate:client-types`): the SDK names them, it never types them again (issue 36 item 3).
 */
import type { operations } from "./api.generated.js";

export type { operations, paths } from "./api.generated.js";

export type OperationId = keyof operations;

/** The JSON body of an operation's answer with `status` (200 by default). */
export type ResponseBody<
  Op extends OperationId,
  Status extends number = 200,
> = operations[Op]["responses"] extends {
  [S in Status]: { content: { "application/json": infer Body } };
}
  ? Body
  : never;

/** The JSON body an operation takes. */
export type RequestBody<Op extends OperationId> = operations[Op] extends {
  requestBody?: { content: { "application/json": infer Body } };
}
  ? Body
  : never;

/** One item of a list operation's page. */
export type ListItem<Op extends OperationId> =
  ResponseBody<Op> extends { items: (infer Item)[] } ? Item : never;
