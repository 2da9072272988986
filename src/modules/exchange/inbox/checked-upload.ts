import { InterchangeScanner } from "../../../edifact/index.js";
import type { DeferredCredential } from "../../../platform/auth/index.js";
import { sha256 } from "../../../platform/crypto/index.js";
import { createStatementBatcher } from "../../../platform/db/statement-batcher.js";
import type { ExchangeDeps } from "../exchange.deps.js";
import {
  connectionIdOf,
  hiddenConnection,
  mayUseConnection,
  requirePartnerConnection,
} from "../partner-access.js";
import * as repo from "./inbox.repository.js";
import { keyHash, type UploadAcceptance, type UploadOutcome } from "./upload-acceptance.js";
import { checkHeaders, notOneInterchange, readAll, type UploadHeaders } from "./upload-checks.js";
import type { UploadSlots } from "./upload-slots.js";

/**
 * A small upload whose partner key is checked by its accept statement: the small uploads that
 * arrive together share one statement.
 */
export function createCheckedUpload(
  deps: Pick<ExchangeDeps, "database" | "newId" | "maxPayloadBytes">,
  acceptance: UploadAcceptance,
  slots: Pick<UploadSlots, "exclusively">,
) {
  const { database } = deps;
  /** Small uploads with their key checked by the statement: those arriving together share one. */
  const checkedUploads = createStatementBatcher<repo.CheckedUpload, repo.CheckedUploadOutcome>({
    lanes: database.tuning.statementLanes,
    maxItems: 32,
    runItems: (uploads) => repo.acceptCheckedUploads(database, uploads),
  });

  return async function uploadChecked(
    credential: DeferredCredential,
    connectionId: string,
    headers: UploadHeaders,
    body: AsyncIterable<Uint8Array | string>,
  ): Promise<UploadOutcome> {
    let key: string;
    let bytes: Buffer;
    let interchangeId: string | undefined;
    let id: string;
    try {
      id = connectionIdOf(connectionId);
      key = checkHeaders(headers, deps.maxPayloadBytes);
      bytes = await readAll(body, deps.maxPayloadBytes);
      const scanner = new InterchangeScanner();
      scanner.push(bytes);
      const scan = scanner.finish();
      if (!scan.ok) throw notOneInterchange(scan.reason);
      interchangeId = scan.interchangeId;
    } catch (error) {
      const principal = await credential.authenticate();
      await requirePartnerConnection(database, principal, connectionId);
      throw error;
    }
    const hash = keyHash(id, key);
    const stored = { byteCount: bytes.length, sha256: sha256(bytes) };
    return slots.exclusively(`${id}:${hash.toString("hex")}`, async () => {
      const upload = acceptance.newUpload(id, hash, deps.newId(), stored, interchangeId, {
        // The statement writes only when the key it names is verified: then this is its id.
        apiKeyId: credential.claimedCredentialId,
        origin: credential.origin,
      });
      const check = credential.rowCheck(null);
      const { result, row } = await checkedUploads.run({ check, upload, bytes });
      const principal = credential.settle(check, row);
      const connection = {
        tenant_id: row.connection_tenant_id ?? null,
        partner_id: row.connection_partner_id ?? null,
        status: row.connection_status ?? null,
      };
      if (!mayUseConnection(principal, id, connection)) throw hiddenConnection();
      return acceptance.outcomeOf(result, principal.tenant.id, upload);
    });
  };
}
