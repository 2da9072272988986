import { mkdtemp, readFile, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { credentialsPath, readCredentials, removeCredentials, writeCredentials } from "./credentials.js";

describe("credentials file", () => {
  it("defaults to ~/.config/hanse/credentials.json; HANSE_CLI_CONFIG overrides", () => {
    expect(credentialsPath({ HOME: "/home/u" })).toBe("/home/u/.config/hanse/credentials.json");
    expect(credentialsPath({ HOME: "/home/u", XDG_CONFIG_HOME: "/cfg" })).toBe("/cfg/hanse/credentials.json");
    expect(credentialsPath({ HANSE_CLI_CONFIG: "/x/c.json" })).toBe("/x/c.json");
  });

  it("is written with mode 0600, also over a looser existing file, and read back", async () => {
    const path = join(await mkdtemp(join(tmpdir(), "hanse-cred-")), "deep", "credentials.json");
    await writeCredentials(path, { url: "http://a", token: "t1" });
    await writeFile(path, JSON.stringify({ url: "http://a", token: "t1" }), { mode: 0o644 });
    await writeCredentials(path, { url: "http://b", token: "t2" });
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect(await readCredentials(path)).toEqual({ url: "http://b", token: "t2" });
    expect(JSON.parse(await readFile(path, "utf8"))).toEqual({ url: "http://b", token: "t2" });
    expect(await removeCredentials(path)).toBe(true);
    expect(await readCredentials(path)).toBeUndefined();
  });

  it("rejects a damaged file with a hint", async () => {
    const path = join(await mkdtemp(join(tmpdir(), "hanse-cred-")), "c.json");
    await writeFile(path, "{");
    await expect(readCredentials(path)).rejects.toThrow(/hanse login/);
  });
});
