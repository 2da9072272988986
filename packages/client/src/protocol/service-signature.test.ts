import { createHash, createHmac } from "node:crypto";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  canonicalServiceRequest,
  serviceCredentialId,
  serviceCredentialUuid,
  serviceNoncePattern,
  serviceSignaturePattern,
} from "./service-signature.js";

const secret = "hanse_ss_Zm9yIHRlc3QgdmVjdG9ycyBvbmx5LCBuZXZlciBpc3N1ZWQ";

/** The test vectors published in docs/entitlements.md. */
function publishedVectors() {
  const doc = readFileSync(new URL("../../../../docs/entitlements.md", import.meta.url), "utf8");
  const blocks = doc.split("<!-- test-vector -->").slice(1);
  return blocks.map((block) => {
    const text = /```text\n([\s\S]*?)```/.exec(block)?.[1] ?? "";
    const field = (name: string) => new RegExp(`^${name}:[ ]*(.*)$`, "m").exec(text)?.[1] ?? "";
    return {
      method: field("method"),
      target: field("target"),
      timestamp: field("timestamp"),
      nonce: field("nonce"),
      body: field("body"),
      bodyHash: field("body hash"),
      signature: field("signature"),
    };
  });
}

describe("issue 21 item 3: the published signing test vectors", () => {
  const vectors = publishedVectors();

  it("cover a query with +, %20, unsorted and repeated parameters, UTF-8, and an empty body", () => {
    expect(vectors.length).toBeGreaterThanOrEqual(6);
    const targets = vectors.map((v) => v.target).join(" ");
    expect(targets).toContain("+");
    expect(targets).toContain("%20");
    expect(targets).toContain("%C3%BC");
    expect(vectors.some((v) => /limit=\d+&afterSequence=\d+&limit=/.test(v.target))).toBe(true);
    expect(vectors.some((v) => v.body === "")).toBe(true);
    expect(vectors.some((v) => Buffer.byteLength(v.body) > v.body.length)).toBe(true);
  });

  it("verify: body hash and signature as published", () => {
    for (const v of vectors) {
      const bodySha256Hex = createHash("sha256").update(Buffer.from(v.body, "utf8")).digest("hex");
      expect(bodySha256Hex, v.target).toBe(v.bodyHash);
      const canonical = canonicalServiceRequest({ ...v, bodySha256Hex });
      expect(canonical.split("\n")).toEqual([v.method, v.target, v.timestamp, v.nonce, v.bodyHash]);
      const signature = createHmac("sha256", Buffer.from(secret, "utf8"))
        .update(canonical)
        .digest("base64url");
      expect(signature, v.target).toBe(v.signature);
      expect(serviceSignaturePattern.test(signature)).toBe(true);
      expect(serviceNoncePattern.test(v.nonce)).toBe(true);
    }
  });
});

describe("service credential ids", () => {
  it("round-trip between the issued form and the UUID; anything else is not an id", () => {
    const uuid = "01936f0e-5c2a-7b3d-8e4f-0123456789ab";
    expect(serviceCredentialId(uuid)).toBe("hanse_sc_01936f0e5c2a7b3d8e4f0123456789ab");
    expect(serviceCredentialUuid(serviceCredentialId(uuid))).toBe(uuid);
    for (const bad of [
      "",
      uuid,
      "hanse_sc_XYZ",
      `hanse_sc_${"A".repeat(32)}`,
      `hanse_sc_${"0".repeat(33)}`,
    ]) {
      expect(serviceCredentialUuid(bad), bad).toBeUndefined();
    }
  });
});
