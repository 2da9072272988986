import { describe, expect, it } from "vitest";
import { checkTargetUrl, isBlockedAddress, resolveTargetHost } from "./outbound-target.js";

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

describe("the IANA special-purpose address registries, block by block (issue 38 defect 3)", () => {
  // [block, an address inside it, the registry's name]: each refused.
  const ipv4: [string, string, string][] = [
    ["0.0.0.0/8", "0.1.2.3", "this network"],
    ["0.0.0.0/32", "0.0.0.0", "this host"],
    ["10.0.0.0/8", "10.255.0.1", "private use"],
    ["100.64.0.0/10", "100.127.255.254", "shared address space"],
    ["127.0.0.0/8", "127.8.9.10", "loopback"],
    ["169.254.0.0/16", "169.254.169.254", "link local"],
    ["172.16.0.0/12", "172.31.255.1", "private use"],
    ["192.0.0.0/24", "192.0.0.200", "IETF protocol assignments"],
    ["192.0.0.0/29", "192.0.0.2", "IPv4 service continuity (DS-Lite)"],
    ["192.0.0.8/32", "192.0.0.8", "IPv4 dummy address"],
    ["192.0.0.9/32", "192.0.0.9", "port control protocol anycast"],
    ["192.0.0.10/32", "192.0.0.10", "TURN anycast"],
    ["192.0.0.170/32", "192.0.0.170", "NAT64/DNS64 discovery"],
    ["192.0.0.171/32", "192.0.0.171", "NAT64/DNS64 discovery"],
    ["192.0.2.0/24", "192.0.2.1", "documentation TEST-NET-1"],
    ["192.31.196.0/24", "192.31.196.1", "AS112-v4"],
    ["192.52.193.0/24", "192.52.193.1", "AMT"],
    ["192.88.99.0/24", "192.88.99.1", "deprecated 6to4 relay anycast"],
    ["192.168.0.0/16", "192.168.1.1", "private use"],
    ["192.175.48.0/24", "192.175.48.6", "direct delegation AS112 service"],
    ["198.18.0.0/15", "198.19.255.1", "benchmarking"],
    ["198.51.100.0/24", "198.51.100.7", "documentation TEST-NET-2"],
    ["203.0.113.0/24", "203.0.113.9", "documentation TEST-NET-3"],
    ["224.0.0.0/4", "239.255.255.250", "multicast"],
    ["240.0.0.0/4", "240.0.0.1", "reserved"],
    ["255.255.255.255/32", "255.255.255.255", "limited broadcast"],
  ];
  const ipv6: [string, string, string][] = [
    ["::1/128", "::1", "loopback"],
    ["::/128", "::", "unspecified"],
    ["::ffff:0:0/96", "::ffff:192.168.0.1", "IPv4-mapped (of a private address)"],
    ["64:ff9b::/96", "64:ff9b::10.0.0.1", "IPv4-IPv6 translation (of a private address)"],
    ["64:ff9b:1::/48", "64:ff9b:1::5db8:d822", "local-use IPv4/IPv6 translation"],
    ["100::/64", "100::1", "discard-only"],
    ["100:0:0:1::/64", "100:0:0:1::1", "dummy IPv6 prefix"],
    ["2001::/23", "2001:1ff::1", "IETF protocol assignments"],
    ["2001::/32", "2001:0:4136:e378:8000:63bf:3fff:fdd2", "Teredo"],
    ["2001:1::1/128", "2001:1::1", "port control protocol anycast"],
    ["2001:1::2/128", "2001:1::2", "TURN anycast"],
    ["2001:1::3/128", "2001:1::3", "DNS-SD service registration protocol anycast"],
    ["2001:2::/48", "2001:2::1", "benchmarking"],
    ["2001:3::/32", "2001:3::1", "AMT"],
    ["2001:4:112::/48", "2001:4:112::1", "AS112-v6"],
    ["2001:10::/28", "2001:10::1", "deprecated ORCHID"],
    ["2001:20::/28", "2001:20::1", "ORCHIDv2"],
    ["2001:30::/28", "2001:30::1", "drone remote ID protocol entity tags"],
    ["2001:db8::/32", "2001:db8::1", "documentation"],
    ["2002::/16", "2002:5db8:d822::1", "6to4 (even of a public address)"],
    ["2620:4f:8000::/48", "2620:4f:8000::42", "direct delegation AS112 service"],
    ["3fff::/20", "3fff:fff::1", "documentation"],
    ["5f00::/16", "5f00::1", "segment routing SIDs"],
    ["fc00::/7", "fd12:3456::1", "unique local"],
    ["fe80::/10", "fe80::1", "link-local unicast"],
  ];

  it.each([...ipv4, ...ipv6])("refuses %s (%s, %s)", (_block, address) => {
    expect(isBlockedAddress(address)).toBe(true);
  });

  it("judges IPv4-mapped, -translated and NAT64 forms by the IPv4 address they carry, in any spelling", () => {
    for (const address of [
      "::ffff:10.0.0.1",
      "::ffff:a00:1",
      "0:0:0:0:0:ffff:7f00:1",
      "::ffff:0:10.0.0.1",
      "::ffff:0:c0a8:101",
      "64:ff9b::192.168.1.1",
      "64:ff9b::a9fe:a9fe",
      "64:ff9b::192.88.99.1",
    ]) {
      expect(isBlockedAddress(address), address).toBe(true);
    }
    for (const address of ["::ffff:93.184.216.34", "::ffff:0:93.184.216.34", "64:ff9b::5db8:d822"]) {
      expect(isBlockedAddress(address), address).toBe(false);
    }
  });

  it("refuses everything outside global unicast 2000::/3, a deprecated or zoned form included", () => {
    for (const address of ["::8.8.8.8", "1::1", "4000::1", "fec0::1", "ff02::1", "fe80::1%eth0", "8.8.8"]) {
      expect(isBlockedAddress(address), address).toBe(true);
    }
  });

  it("allows the neighbours of the blocks", () => {
    for (const address of [
      "1.1.1.1",
      "100.63.255.255",
      "100.128.0.0",
      "172.32.0.1",
      "192.0.1.1",
      "192.88.98.255",
      "192.88.100.0",
      "198.20.0.1",
      "223.255.255.254",
      "2001:200::1",
      "2001:db9::1",
      "2003::1",
      "2620:4f:8001::1",
      "3fff:1000::1",
      "2a00:1450:4001::1",
    ]) {
      expect(isBlockedAddress(address), address).toBe(false);
    }
  });

  it("refuses port 0 in any spelling, and allows the others", () => {
    for (const url of [
      "https://hooks.example.com:0/in",
      "https://hooks.example.com:00/in",
      "https://[2001:db9::1]:0/",
    ]) {
      expect(() => checkTargetUrl(url), url).toThrow(/port 0/);
    }
    expect(checkTargetUrl("https://hooks.example.com:1/in").port).toBe("1");
    expect(checkTargetUrl("https://hooks.example.com:443/in").port).toBe("");
  });
});
