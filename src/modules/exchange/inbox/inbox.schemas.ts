import { Type } from "@sinclair/typebox";
import { Uuid } from "../../../platform/http/openapi-schemas.js";
import { UploadStatus, uploadId } from "../exchange.schemas.js";

/** The partner's upload answer. */
export const UploadResponse = Type.Object(
  {
    uploadId: Uuid,
    interchangeId: Type.Optional(Type.String()),
    status: UploadStatus,
    replay: Type.Boolean(),
  },
  { examples: [{ uploadId, interchangeId: "42", status: "received", replay: false }] },
);
