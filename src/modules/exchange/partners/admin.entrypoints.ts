import { Type } from "@sinclair/typebox";
import {
  crudActions,
  type ActionDefinition,
  type EntrypointDefinition,
} from "../../../platform/http/entrypoints.js";
import {
  ApiKeyItem,
  AuditEventItem,
  ConnectionItem,
  CreateApiKeyBody,
  CreateConnectionBody,
  CreatePartnerBody,
  DeliveryItem,
  PartnerItem,
  UpdateConnectionBody,
  UpdatePartnerBody,
  UploadItem,
} from "./partners.schemas.js";
import { adminPaths } from "./admin.routes.js";

const scopes = { read: "admin:read", write: "admin:write" } as const;
const readOnly = (href: string): ActionDefinition[] => [
  { id: "list", method: "GET", href, anyScopes: ["admin:read"] },
  { id: "read", method: "GET", href: `${href}/{id}`, anyScopes: ["admin:read"] },
];
/** The operator's reads of a stored interchange: its bytes and its segment tree (both audited). */
const contentActions = (href: string): ActionDefinition[] => [
  { id: "content", method: "GET", href: `${href}/{id}/content`, anyScopes: ["admin:read"] },
  { id: "segments", method: "GET", href: `${href}/{id}/segments`, anyScopes: ["admin:read"] },
];
const none = Type.Object({}, { additionalProperties: false });
const tenantTypes = ["system", "customer"] as const;

/** The administration's collections as the published entrypoints describe them. */
export const adminEntrypoints: EntrypointDefinition[] = [
  {
    id: "admin.partners",
    kind: "crud",
    href: adminPaths.partners,
    tenantTypes,
    actions: crudActions(adminPaths.partners, scopes, [
      { id: "update", method: "PATCH", href: `${adminPaths.partners}/{id}`, anyScopes: ["admin:write"] },
    ]),
    schemas: { create: CreatePartnerBody, update: UpdatePartnerBody, item: PartnerItem },
  },
  {
    id: "admin.connections",
    kind: "crud",
    href: adminPaths.connections,
    tenantTypes,
    actions: crudActions(adminPaths.connections, scopes, [
      {
        id: "update",
        method: "PATCH",
        href: `${adminPaths.connections}/{id}`,
        anyScopes: ["admin:write"],
      },
      {
        id: "listProfileRevisions",
        method: "GET",
        href: `${adminPaths.connections}/{id}/profile-revisions`,
        anyScopes: ["admin:read"],
      },
      {
        id: "readProfileRevision",
        method: "GET",
        href: `${adminPaths.connections}/{id}/profile-revisions/{revision}`,
        anyScopes: ["admin:read"],
      },
      {
        id: "createProfileRevision",
        method: "POST",
        href: `${adminPaths.connections}/{id}/profile-revisions`,
        anyScopes: ["admin:write"],
      },
      {
        id: "activateProfileRevision",
        method: "POST",
        href: `${adminPaths.connections}/{id}/profile-revisions/{revision}/activate`,
        anyScopes: ["admin:write"],
      },
    ]),
    schemas: { create: CreateConnectionBody, update: UpdateConnectionBody, item: ConnectionItem },
  },
  {
    id: "admin.apiKeys",
    kind: "crud",
    href: adminPaths.apiKeys,
    tenantTypes,
    actions: crudActions(adminPaths.apiKeys, scopes, [
      {
        id: "revoke",
        method: "POST",
        href: `${adminPaths.apiKeys}/{id}/revoke`,
        anyScopes: ["admin:write"],
      },
    ]),
    schemas: { create: CreateApiKeyBody, update: null, item: ApiKeyItem },
  },
  {
    id: "admin.auditEvents",
    kind: "crud",
    href: adminPaths.auditEvents,
    tenantTypes,
    actions: [
      ...readOnly(adminPaths.auditEvents),
      {
        id: "verify",
        method: "GET",
        href: `${adminPaths.auditEvents}/verification`,
        anyScopes: ["admin:read"],
      },
      { id: "export", method: "GET", href: `${adminPaths.auditEvents}/export`, anyScopes: ["admin:read"] },
    ],
    schemas: { create: none, update: null, item: AuditEventItem },
  },
  {
    id: "admin.exchangeUploads",
    kind: "crud",
    href: adminPaths.uploads,
    tenantTypes,
    actions: [...readOnly(adminPaths.uploads), ...contentActions(adminPaths.uploads)],
    schemas: { create: none, update: null, item: UploadItem },
  },
  {
    id: "admin.exchangeDeliveries",
    kind: "crud",
    href: adminPaths.deliveries,
    tenantTypes,
    actions: [
      ...readOnly(adminPaths.deliveries),
      ...contentActions(adminPaths.deliveries),
      {
        id: "requeue",
        method: "POST",
        href: `${adminPaths.deliveries}/{id}/requeue`,
        anyScopes: ["admin:write"],
      },
      {
        id: "resend",
        method: "POST",
        href: `${adminPaths.deliveries}/{id}/resend`,
        anyScopes: ["admin:write"],
      },
    ],
    schemas: { create: none, update: null, item: DeliveryItem },
  },
];
