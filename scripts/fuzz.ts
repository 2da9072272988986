/**
 * `npm run fuzz -- <target> [options]`: the project's fuzzers (issue 20). Each target is a module
 * whose `main(args)` returns the exit code (0: nothing found). Add a target by adding it here.
 */
import { pathToFileURL } from "node:url";

export const targets: Record<
  string,
  () => Promise<{ main: (args: readonly string[]) => number | Promise<number> }>
> = {
  edifact: () => import("./fuzz/edifact.js"),
  protocols: () => import("./fuzz/protocols.js"),
  http: async () => {
    const { runHttpFuzz } = await import("./fuzz/http.js");
    return { main: (args) => runHttpFuzz([...args]) };
  },
};

async function run(argv: readonly string[]): Promise<number> {
  const [name, ...args] = argv;
  const target = name !== undefined ? targets[name] : undefined;
  if (!target) {
    console.error(`usage: npm run fuzz -- <${Object.keys(targets).join("|")}> [options]`);
    return 2;
  }
  return (await target()).main(args);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  process.exitCode = await run(process.argv.slice(2));
}
