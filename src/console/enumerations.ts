/**
 * The value lists the console offers (roles, statuses, message types, scopes), read from the API's
 * own description (issue 36 item 3): the console never types a list the routes already declare.
 * Served as `/console/enumerations.json`; `assets/enumerations.js` loads it once after sign-in.
 */
type Where =
  | { operationId: string; query: string }
  | { operationId: string; request: readonly string[] }
  | { operationId: string; response: readonly string[] };

/** Which operation, and where in it, each list is declared. */
export const consoleEnumerations = {
  userRoles: { operationId: "inviteUser", request: ["role"] },
  entitlementStatuses: { operationId: "setEntitlement", request: ["status"] },
  deliveryMessageTypes: { operationId: "listDeliveries", query: "messageType" },
  uploadStatuses: { operationId: "getUpload", response: ["status"] },
  deliveryStatuses: { operationId: "getDelivery", response: ["status"] },
  transitionStatuses: { operationId: "getTransitionRequest", response: ["status"] },
  partnerScopes: { operationId: "createApiKey", request: ["scopes", "items"] },
  contrlResponses: { operationId: "createProfileRevision", request: ["responses", "contrl"] },
  aperakResponses: { operationId: "createProfileRevision", request: ["responses", "aperak"] },
  ordrspResponses: { operationId: "createProfileRevision", request: ["responses", "ordrsp"] },
  orderValidations: { operationId: "createProfileRevision", request: ["orderValidation"] },
  operatorEventTypes: { operationId: "createWebhookSubscription", request: ["eventTypes", "items"] },
} as const satisfies Record<string, Where>;

interface Schema {
  enum?: unknown[];
  anyOf?: Schema[];
  properties?: Record<string, Schema>;
  items?: Schema;
}
interface Operation {
  operationId?: string;
  parameters?: { name: string; in: string; schema?: Schema }[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
  responses?: Record<string, { content?: Record<string, { schema?: Schema }> }>;
}

/** The strings a schema allows: its `enum`, or those of the members of its `anyOf`. */
function valuesOf(schema: Schema | undefined): string[] {
  if (!schema) return [];
  if (schema.enum) return schema.enum.filter((value): value is string => typeof value === "string");
  return (schema.anyOf ?? []).flatMap(valuesOf);
}

/** `items` steps into an array's items, any other name into a property. */
function at(schema: Schema | undefined, path: readonly string[]): Schema | undefined {
  return path.reduce<Schema | undefined>(
    (current, step) => (step === "items" ? current?.items : current?.properties?.[step]),
    schema,
  );
}

const json = "application/json";

/** Every list of `consoleEnumerations`, from the OpenAPI document; a list it cannot find throws. */
export function enumerationsFrom(document: { paths?: Record<string, Record<string, Operation>> }) {
  const operations = new Map(
    Object.values(document.paths ?? {})
      .flatMap((methods) => Object.values(methods))
      .map((operation) => [operation.operationId, operation] as const),
  );
  const lists: Record<string, string[]> = {};
  for (const [name, where] of Object.entries(consoleEnumerations) as [string, Where][]) {
    const operation = operations.get(where.operationId);
    let schema: Schema | undefined;
    if ("query" in where)
      schema = operation?.parameters?.find((p) => p.in === "query" && p.name === where.query)?.schema;
    else if ("request" in where) schema = at(operation?.requestBody?.content?.[json]?.schema, where.request);
    else {
      const success = Object.keys(operation?.responses ?? {}).find((status) => status.startsWith("2")) ?? "";
      schema = at(operation?.responses?.[success]?.content?.[json]?.schema, where.response);
    }
    const values = valuesOf(schema);
    if (values.length === 0)
      throw new Error(`the API description declares no values for the console's ${name}`);
    lists[name] = values;
  }
  return lists;
}
