import { describe, expect, it } from "vitest";
import { checkTargetUrl, isBlockedAddress, resolveTargetHost } from "./target.js";

describe("lifecycle adapter targets", () => {
  it("refuses loopback, private, link-local, CGNAT, multicast, ULA and mapped forms", () => {
    for (const address of [
      "127.0.0.1",
      "10.1.2.3",
      "172.16.0.1",
      "192.168.1.1",
      "169.254.169.254",
      "100.64.0.1",
      "224.0.0.1",
      "0.0.0.0",
      "::1",
      "::",
      "fe80::1",
      "fc00::1",
      "fd12:3456::1",
      "ff02::1",
      "::ffff:127.0.0.1",
      "::ffff:7f00:1",
      "::ffff:10.0.0.1",
      "64:ff9b:1::a00:1",
      "2002:7f00:1::1",
      "2001:0:4136:e378:8000:63bf:3fff:fdd2",
      "2001:db8::1",
      "100::1",
      "192.0.2.1",
      "198.51.100.7",
      "203.0.113.9",
    ]) {
      expect(isBlockedAddress(address), address).toBe(true);
    }
  });

  it("allows public addresses", () => {
    for (const address of ["93.184.216.34", "8.8.8.8", "2606:4700:4700::1111", "::ffff:93.184.216.34"]) {
      expect(isBlockedAddress(address), address).toBe(false);
    }
  });

  it("checks the URL form", () => {
    expect(() => checkTargetUrl("http://example.com/")).toThrow(/https/);
    expect(() => checkTargetUrl("https://u:p@example.com/")).toThrow(/credentials/);
    expect(() => checkTargetUrl("not a url")).toThrow(/valid/);
    expect(checkTargetUrl("https://pim.example.com/hook").hostname).toBe("pim.example.com");
  });

  it("refuses a host that resolves to loopback unless private targets are allowed", async () => {
    await expect(resolveTargetHost("localhost", false)).rejects.toThrow(/private|loopback|reserved/);
    await expect(resolveTargetHost("127.0.0.1", false)).rejects.toThrow();
    await expect(resolveTargetHost("127.0.0.1", true)).resolves.toHaveLength(1);
  });
});
