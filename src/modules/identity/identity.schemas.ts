import { Type } from "@sinclair/typebox";
import { allScopes } from "@hanse/client/protocol";
import { Uuid } from "../../platform/http/openapi-schemas.js";

export const ScopeSchema = Type.Union(
  allScopes.map((s) => Type.Literal(s)),
  { description: "A scope (rules/contract §2)" },
);

export const IdParams = Type.Object({ id: Uuid }, { additionalProperties: false });
