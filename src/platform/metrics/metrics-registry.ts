import {
  collectDefaultMetrics,
  Counter,
  Gauge,
  Histogram,
  Registry,
  type CounterConfiguration,
  type GaugeConfiguration,
} from "prom-client";

/**
 * The process's metrics (prom-client). Platform parts and modules register their own series here
 * through their public surface; nothing in platform/ knows which modules do.
 *
 * Two kinds of series:
 * - what happens in this process (a request answered, a job run, a payload read) is counted where
 *   it happens: counters and histograms;
 * - what the database knows (jobs queued, deliveries ready, the oldest of them) is read when
 *   scraped, by one query per area (`onScrape`), at most once per `cacheMs` however often or
 *   however many scrapers ask, so that scraping cannot load the database.
 */
export interface MetricsRegistry {
  /** `collect` serves a total kept elsewhere (reset, then inc by it) at scrape time. */
  counter<L extends string = never>(
    config: MetricConfig<L> & Pick<CounterConfiguration<L>, "collect">,
  ): Counter<L>;
  gauge<L extends string = never>(config: MetricConfig<L> & Pick<GaugeConfiguration<L>, "collect">): Gauge<L>;
  histogram<L extends string = never>(config: MetricConfig<L> & { buckets?: number[] }): Histogram<L>;
  /** `read` sets some gauges from the database; run before a scrape, its result kept `cacheMs`. */
  onScrape(area: string, read: () => Promise<void>): void;
  /** The process defaults of prom-client (CPU, memory, heap, GC, event-loop lag, handles). */
  collectProcessMetrics(): void;
  /** The text exposition format. */
  scrape(): Promise<string>;
  readonly contentType: string;
}

export interface MetricConfig<L extends string> {
  name: string;
  help: string;
  labelNames?: readonly L[];
}

interface Area {
  name: string;
  read(): Promise<void>;
  readAt: number;
  pending: Promise<void> | undefined;
}

export interface MetricsRegistryOptions {
  /** How long values read from the database are served before the next read (default 10 s). */
  cacheMs?: number;
  now?: () => number;
}

export function createMetricsRegistry(options: MetricsRegistryOptions = {}): MetricsRegistry {
  const registry = new Registry();
  const cacheMs = options.cacheMs ?? 10_000;
  const now = options.now ?? Date.now;
  const areas: Area[] = [];
  let processMetrics = false;
  const readFailures = new Counter({
    name: "hanse_metrics_read_failures_total",
    help: "Scrape-time reads of an area that failed (its series keep their last values)",
    labelNames: ["area"],
    registers: [registry],
  });

  const refresh = (area: Area): Promise<void> => {
    if (area.pending) return area.pending;
    if (area.readAt !== 0 && now() - area.readAt < cacheMs) return Promise.resolve();
    area.pending = area
      .read()
      .catch(() => {
        readFailures.inc({ area: area.name });
      })
      .finally(() => {
        area.readAt = now();
        area.pending = undefined;
      });
    return area.pending;
  };

  return {
    counter: <L extends string>(config: MetricConfig<L> & Pick<CounterConfiguration<L>, "collect">) =>
      new Counter<L>({ ...config, registers: [registry] }),
    gauge: <L extends string>(config: MetricConfig<L> & Pick<GaugeConfiguration<L>, "collect">) =>
      new Gauge<L>({ ...config, registers: [registry] }),
    histogram: <L extends string>(config: MetricConfig<L> & { buckets?: number[] }) =>
      new Histogram<L>({ ...config, registers: [registry] }),
    onScrape(name, read) {
      areas.push({ name, read, readAt: 0, pending: undefined });
    },
    collectProcessMetrics() {
      if (processMetrics) return;
      processMetrics = true;
      collectDefaultMetrics({ register: registry });
    },
    async scrape() {
      await Promise.all(areas.map(refresh));
      return registry.metrics();
    },
    contentType: registry.contentType,
  };
}

/**
 * Sets a gauge by one label from rows counted in the database: every `known` value is written
 * (0 when no row has it), so a series that falls to zero shows 0 instead of vanishing.
 */
export function setCounts<L extends string>(
  gauge: Gauge<L>,
  label: L,
  known: readonly string[],
  rows: readonly { key: string; n: number }[],
  extra: Partial<Record<L, string>> = {},
): void {
  for (const value of known) gauge.set({ ...extra, [label]: value } as Record<L, string>, 0);
  for (const row of rows) gauge.set({ ...extra, [label]: row.key } as Record<L, string>, row.n);
}

/** Seconds from `since` to `now`, 0 when there is nothing. */
export const ageSeconds = (since: Date | string | null | undefined, now: Date): number =>
  since ? Math.max(0, (now.getTime() - new Date(since).getTime()) / 1000) : 0;
