import { AppError } from "../../../platform/errors/app-error.js";

/*
 * The checks of an upload request that need no database: its headers (rules/contract §4) and the
 * reading of a small body whole.
 */

/** rules/contract §4 / rules/interface Limits: ≤ 200 characters of letters, digits, `.`, `_`, `:`, `-`. */
export const uploadKeyPattern = /^[A-Za-z0-9._:-]{1,200}$/;
/**
 * An upload declaring at most this many bytes has its partner key checked by its accept statement
 * (one round trip for the whole request); larger ones are authenticated before their body is read.
 */
export const deferredUploadBytes = 64 * 1024;
const acceptedTypes = new Set(["application/edifact", "application/octet-stream"]);

/** Headers of an upload request that the checks read. */
export interface UploadHeaders {
  contentType?: string | undefined;
  key?: string | string[] | undefined;
  contentLength?: string | undefined;
}

export const invalid = (detail: string, pointer: string) =>
  new AppError("ERR_B2B_EXCHANGE_INVALID_REQUEST", detail, { errors: [{ pointer, message: detail }] });
export const tooLarge = () =>
  new AppError("ERR_B2B_EXCHANGE_PAYLOAD_TOO_LARGE", "The payload exceeds 16 MiB.");
/** The synchronous check's refusal: the body is not exactly one interchange. */
export const notOneInterchange = (reason: string | undefined) =>
  invalid(reason ?? "The body is not exactly one interchange.", "/body");

export const toBuffer = (part: Uint8Array | string): Buffer =>
  typeof part === "string"
    ? Buffer.from(part, "utf8")
    : Buffer.isBuffer(part)
      ? part
      : Buffer.from(part.buffer, part.byteOffset, part.byteLength);

/** A small body, whole (the caller bounds it by its declared length). */
export async function readAll(body: AsyncIterable<Uint8Array | string>, maxBytes: number): Promise<Buffer> {
  const parts: Buffer[] = [];
  let total = 0;
  for await (const part of body) {
    const bytes = toBuffer(part);
    total += bytes.length;
    if (total > maxBytes) throw tooLarge();
    parts.push(bytes);
  }
  return parts.length === 1 && parts[0] ? parts[0] : Buffer.concat(parts, total);
}

/** The media type without parameters, lower case. */
export const mediaType = (value: string | undefined): string =>
  (value ?? "").split(";")[0]?.trim().toLowerCase() ?? "";

const keyRule = "1–200 characters of letters, digits, '.', '_', ':' and '-'";

/**
 * What is wrong with an upload's Idempotency-Key, for its detail: missing, too long, or other
 * characters (the key itself is never repeated: it may hold business data, rules/contract §1).
 */
function keyFault(key: string | string[] | undefined): string {
  if (typeof key !== "string" || key === "") return `Idempotency-Key is required: ${keyRule}.`;
  if (key.length > 200) return `Idempotency-Key is longer than 200 characters: ${keyRule}.`;
  return `Idempotency-Key holds a character other than letters, digits, '.', '_', ':' and '-': ${keyRule}.`;
}

/** Content type and key (rules/contract §4), and a declared length over the limit. */
export function checkHeaders(headers: UploadHeaders, maxPayloadBytes: number): string {
  if (!acceptedTypes.has(mediaType(headers.contentType))) {
    throw invalid(
      mediaType(headers.contentType) === ""
        ? "Content-Type is missing: send application/edifact or application/octet-stream."
        : "Content-Type must be application/edifact or application/octet-stream.",
      "/headers/content-type",
    );
  }
  const key = headers.key;
  if (typeof key !== "string" || !uploadKeyPattern.test(key)) {
    throw invalid(keyFault(key), "/headers/idempotency-key");
  }
  if (headers.contentLength !== undefined && Number(headers.contentLength) > maxPayloadBytes) {
    throw tooLarge();
  }
  return key;
}
