/**
 * `npm run bench -- <name>`: runs bench/<name>.bench.ts (its exported `run()`), or every
 * benchmark when no name is given. Each benchmark measures its own baseline in the same run.
 */
import { readdir } from "node:fs/promises";

const names = process.argv.slice(2);
const available = (await readdir(new URL(".", import.meta.url)))
  .filter((f) => f.endsWith(".bench.ts"))
  .map((f) => f.replace(/\.bench\.ts$/, ""));
const selected = names.length > 0 ? names : available;
for (const name of selected) {
  if (!available.includes(name)) {
    process.stderr.write(`unknown benchmark ${name}; available: ${available.join(", ")}\n`);
    process.exit(2);
  }
  process.stdout.write(`\n## ${name}\n\n`);
  const module = (await import(`./${name}.bench.ts`)) as { run: () => Promise<void> };
  await module.run();
}
