import { Command } from "commander";
import { describe, expect, it } from "vitest";
import { Capture } from "../../../../test/support/cli-runner.js";
import { topLevelCommands } from "./command-table.js";
import { registerCliCommands } from "./index.js";

const io = () => ({ env: {}, stdout: new Capture(), stderr: new Capture() });
const listed = (program: Command) => program.commands.map((c) => [c.name(), c.description()]);

describe("the command table bin/hanse.js starts from", () => {
  it("lists every top-level command of the CLI, in order, with its module's description", () => {
    const program = new Command("hanse");
    registerCliCommands(program, io());
    expect(topLevelCommands.map((c) => [c.name, c.description])).toEqual(listed(program));
  });

  it.each(topLevelCommands.map((c) => c.name))("%s: its module registers it", async (name) => {
    const entry = topLevelCommands.find((c) => c.name === name);
    const program = new Command("hanse");
    (await entry?.load())?.(program, io());
    expect(listed(program)).toContainEqual([name, entry?.description]);
  });
});
