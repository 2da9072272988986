import { Type } from "@sinclair/typebox";
import { stringEnum } from "../../platform/http/openapi-schemas.js";
import { connectionStatuses, deliveryStatuses, uploadStatuses } from "./exchange.tables.js";

/*
 * What the exchange's parts share of their request and response schemas: the examples the
 * OpenAPI document shows (one partner, connection, upload and delivery throughout) and the
 * partner routes' connection parameter. Each part's own schemas are in its <part>.schemas.ts.
 */

// ---- statuses: the description names every value, so clients and the console read them there ----

export const UploadStatus = stringEnum(uploadStatuses);
export const DeliveryStatus = stringEnum(deliveryStatuses);
export const ConnectionStatus = stringEnum(connectionStatuses);

// ---- examples ----------------------------------------------------------------------------------

export const at = "2026-11-27T09:00:00.000Z";
export const partnerId = "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f";
export const connectionId = "5e6f7a8b-9c0d-4e1f-8a2b-3c4d5e6f7a8b";
export const uploadId = "7a8b9c0d-1e2f-4a3b-8c4d-5e6f7a8b9c0d";
export const deliveryAttemptId = "9c0d1e2f-3a4b-4c5d-8e6f-7a8b9c0d1e2f";
export const mailboxExample = {
  deliveryAttemptId,
  interchangeId: "1001",
  messageType: "CONTRL",
  payloadSize: 212,
  payloadSha256: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
  status: "ready",
  createdAt: at,
  uploadId,
  inboundInterchangeId: "42",
  messageReference: "1",
};

// Partner routes. Path parameters are plain strings: a malformed id is 404, like a foreign one.
export const ConnectionParams = Type.Object({ connectionID: Type.String({ maxLength: 200 }) });
