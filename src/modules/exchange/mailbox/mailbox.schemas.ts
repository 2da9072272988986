import { Type } from "@sinclair/typebox";
import { Timestamp, Uuid, listOf } from "../../../platform/http/openapi-schemas.js";
import { DeliveryStatus, deliveryAttemptId, mailboxExample } from "../exchange.schemas.js";

/** The partner's mailbox: its parameters, list, claim and acknowledgement. */
export const DeliveryParams = Type.Object({
  connectionID: Type.String({ maxLength: 200 }),
  deliveryAttemptID: Type.String({ maxLength: 200 }),
});
export const MailboxItem = Type.Object(
  {
    deliveryAttemptId: Uuid,
    interchangeId: Type.String(),
    messageType: Type.String(),
    payloadSize: Type.Integer(),
    payloadSha256: Type.String(),
    status: DeliveryStatus,
    createdAt: Timestamp,
    uploadId: Uuid,
    inboundInterchangeId: Type.Union([Type.String(), Type.Null()]),
    messageReference: Type.String(),
  },
  { examples: [mailboxExample] },
);
export const MailboxList = listOf(MailboxItem);
export const MailboxQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })),
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 1024 })),
});

export const ClaimResponse = Type.Object(
  {
    deliveryAttemptId: Uuid,
    claimToken: Type.String(),
    expiresAt: Timestamp,
    attempt: Type.Integer(),
  },
  {
    examples: [
      { deliveryAttemptId, claimToken: "<claim token>", expiresAt: "2026-11-27T09:05:00.000Z", attempt: 1 },
    ],
  },
);

export const AcknowledgeResponse = Type.Object(
  {
    deliveryAttemptId: Uuid,
    receiptId: Uuid,
    acknowledgedAt: Timestamp,
    replay: Type.Boolean(),
  },
  {
    examples: [
      {
        deliveryAttemptId,
        receiptId: "f5a6b7c8-d9e0-4f1a-8b2c-3d4e5f6a7b8c",
        acknowledgedAt: "2026-11-27T09:01:00.000Z",
        replay: false,
      },
    ],
  },
);
