import fc, { type Parameters } from "fast-check";

/**
 * How long the model-based tests of test/protocols run (docs/decisions.md "Model-based tests of
 * the protocols"). `npm test` runs each property `defaultRuns` times; `npm run fuzz -- protocols`
 * sets a time budget instead:
 *
 *   HANSE_PROTOCOL_RUNS=N      runs per property (default: the file's own short run)
 *   HANSE_PROTOCOL_SECONDS=N   run each property for N seconds (as many runs as fit)
 *   HANSE_PROTOCOL_SEED=S      replay: the seed a counterexample printed,
 *   HANSE_PROTOCOL_PATH=P      and its path (fast-check's `{ seed, path }`)
 */
export function protocolRuns(defaultRuns: number): Parameters<unknown> {
  const env = process.env;
  const seconds = Number(env.HANSE_PROTOCOL_SECONDS ?? "0");
  const runs = Number(env.HANSE_PROTOCOL_RUNS ?? "0");
  const seed = env.HANSE_PROTOCOL_SEED;
  return {
    numRuns: seconds > 0 ? 1_000_000 : runs > 0 ? runs : defaultRuns,
    ...(seconds > 0 ? { plugins: [fc.interruptAfterTimeLimit(seconds * 1000)] } : {}),
    ...(seed !== undefined && seed !== "" ? { seed: Number(seed) } : {}),
    ...(env.HANSE_PROTOCOL_PATH ? { path: env.HANSE_PROTOCOL_PATH } : {}),
    verbose: fc.VerbosityLevel.Verbose,
  };
}

/** The vitest timeout of one property: the default, or the time budget plus time to shrink. */
export function protocolTimeout(): number {
  const seconds = Number(process.env.HANSE_PROTOCOL_SECONDS ?? "0");
  return seconds > 0 ? seconds * 1000 + 600_000 : 120_000;
}

/** Counts a property's runs (shrinking included) and prints them with the time taken. */
export function runCounter(label: string): { tick(): void; report(): void } {
  let runs = 0;
  const started = Date.now();
  return {
    tick: () => {
      runs++;
    },
    report: () => {
      console.log(`${label}: ${runs} runs in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    },
  };
}
