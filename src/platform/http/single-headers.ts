import { headers } from "@hanse/client/protocol";
import { serviceHeaders } from "@hanse/client/protocol";
import { AppError } from "../errors/app-error.js";

/**
 * Fields that carry one value (RFC 9110 §5.3: not lists). Node keeps only the first of some
 * repeated fields (`Authorization`) and joins others with ", ", so a proxy in front that reads
 * another copy would act for someone else than Hanse does: a repeated one is refused.
 */
const singleNames = new Set<string>([
  "authorization",
  headers.idempotencyKey,
  headers.workflowIdempotencyKey,
  headers.tenantId,
  headers.claimToken,
  ...Object.values(serviceHeaders),
]);
/** Every header of the signed service requests, including any later one. */
const servicePrefix = "x-platform-service-";

/**
 * The first header of the single-valued ones that `rawHeaders` (Node's name, value, name, … list,
 * as sent) holds more than once, lower-case; undefined when none is repeated.
 */
export function repeatedSingleHeader(rawHeaders: readonly string[]): string | undefined {
  const seen = new Set<string>();
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = (rawHeaders[i] ?? "").toLowerCase();
    if (!singleNames.has(name) && !name.startsWith(servicePrefix)) continue;
    if (seen.has(name)) return name;
    seen.add(name);
  }
  return undefined;
}

/**
 * The refusal of a request that repeats `name`. It names the header (one of ours, else only the
 * family: a client's own header name is not echoed) and never any of its values.
 */
export function repeatedHeaderError(name: string): AppError {
  const named = singleNames.has(name) ? name : `${servicePrefix}*`;
  return new AppError("ERR_VALIDATION", "A header that takes one value was sent more than once.", {
    errors: [{ pointer: `/headers/${named}`, message: "must be sent once" }],
  });
}
