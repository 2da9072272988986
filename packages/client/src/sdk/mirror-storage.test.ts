import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { Entitlement } from "../protocol/index.js";
import {
  createJsonFileStorage,
  createMemoryStorage,
  MirrorStateError,
  type MirrorState,
} from "./mirror-storage.js";

const entitlement = (actorId: string, sequence: number): Entitlement => ({
  appId: "crm",
  actorId,
  status: "active",
  plan: "pro",
  capabilities: ["read"],
  validFrom: "2026-01-01T00:00:00.000Z",
  validUntil: null,
  sequence,
  updatedAt: "2026-01-01T00:00:00.000Z",
});

/** A state of `size` actors at `sequence`: its own size tells which save a reader saw. */
const state = (sequence: number, size = 3): MirrorState => ({
  version: 1,
  server: "https://hanse.example",
  appId: "crm",
  asOfSequence: 0,
  sequence,
  savedAt: "2026-01-01T00:00:00.000Z",
  entitlements: Array.from({ length: size }, (_, i) => entitlement(`actor-${i}`, sequence)),
});

describe("mirror storage (issue 22 item 3)", async () => {
  const root = await mkdtemp(join(tmpdir(), "hanse-mirror-storage-"));
  afterAll(() => rm(root, { recursive: true, force: true }));

  it("issue 22: the JSON file storage keeps a state (mode 0600, directories made) and clear forgets it", async () => {
    const storage = createJsonFileStorage(join(root, "nested", "dir", "state.json"));
    expect(await storage.load()).toBeUndefined();
    await storage.save(state(7));
    expect(await storage.load()).toEqual(state(7));
    expect((await stat(storage.path)).mode & 0o777).toBe(0o600);
    await storage.clear();
    expect(await storage.load()).toBeUndefined();
    await storage.clear();
  });

  it("issue 22: saves replace the file atomically: a concurrent reader only ever sees whole states, and no temporary file stays", async () => {
    const dir = join(root, "atomic");
    const storage = createJsonFileStorage(join(dir, "state.json"));
    await storage.save(state(0, 2000));
    const control = { writing: true };
    const reads: number[] = [];
    const reader = (async () => {
      while (control.writing) {
        // Parses, and is internally consistent: every entitlement carries the state's sequence.
        const seen = JSON.parse(await readFile(storage.path, "utf8")) as MirrorState;
        expect(seen.entitlements).toHaveLength(2000);
        expect(new Set(seen.entitlements.map((e) => e.sequence))).toEqual(new Set([seen.sequence]));
        reads.push(seen.sequence);
      }
    })();
    for (let sequence = 1; sequence <= 30; sequence++) await storage.save(state(sequence, 2000));
    control.writing = false;
    await reader;
    expect(reads.length).toBeGreaterThan(0);
    expect((await storage.load())?.sequence).toBe(30);
    expect(await readdir(dir)).toEqual(["state.json"]);
  });

  it("issue 22: a save that fails leaves no temporary file behind", async () => {
    const dir = join(root, "failing");
    await mkdir(join(dir, "state.json", "in-the-way"), { recursive: true });
    const storage = createJsonFileStorage(join(dir, "state.json"));
    await expect(storage.save(state(1))).rejects.toThrow(/EISDIR|ENOTEMPTY|EEXIST/);
    expect(await readdir(dir)).toEqual(["state.json"]);
  });

  it("issue 22: a corrupt or foreign file is a MirrorStateError naming the file and the way out, never its content", async () => {
    const path = join(root, "corrupt.json");
    const storage = createJsonFileStorage(path);
    const refusal = async (content: string) => {
      await writeFile(path, content);
      const error = await storage.load().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(MirrorStateError);
      const message = (error as Error).message;
      expect(message).toContain(path);
      expect(message).toContain("delete it to start again from a snapshot");
      return message;
    };
    const whole = JSON.stringify(state(5));
    expect(await refusal(whole.slice(0, whole.length / 2))).toMatch(/is not valid JSON/);
    expect(await refusal("")).toMatch(/is not valid JSON/);
    expect(await refusal(JSON.stringify({ ...state(5), version: 2 }))).toMatch(/version 2 is not 1/);
    expect(await refusal(JSON.stringify({ ...state(5), sequence: -1 }))).toMatch(/no valid sequence/);
    expect(await refusal(JSON.stringify({ ...state(5), asOfSequence: 6 }))).toMatch(/no valid sequence/);
    const secretish = await refusal(
      JSON.stringify({ ...state(5), entitlements: [{ token: "hanse_ss_not-for-logs" }] }),
    );
    expect(secretish).toMatch(/an entitlement without actorId/);
    expect(secretish).not.toContain("hanse_ss_");
    expect(await refusal("[]")).toMatch(/not an object/);
  });

  it("issue 22: the memory storage keeps a copy, not the caller's object", async () => {
    const storage = createMemoryStorage();
    const saved = state(3);
    await storage.save(saved);
    saved.entitlements.length = 0;
    const loaded = await storage.load();
    expect(loaded?.entitlements).toHaveLength(3);
    if (loaded) loaded.sequence = 99;
    expect(storage.state?.sequence).toBe(3);
    await storage.clear();
    expect(await storage.load()).toBeUndefined();
  });
});
