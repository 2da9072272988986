/**
 * Polls `condition` every `intervalMs` until it holds; throws "timed out: <what>" once `timeoutMs`
 * has passed. For tests that wait on other processes, workers or timers.
 */
export async function waitUntil(
  condition: () => Promise<boolean>,
  options: { what: string; timeoutMs?: number; intervalMs?: number },
): Promise<void> {
  const deadline = Date.now() + (options.timeoutMs ?? 20_000);
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out: ${options.what}`);
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 50));
  }
}
