/**
 * A request counter and a latency histogram with the same labels, kept in plain arrays and
 * rendered by the registry at scrape time. prom-client's own Counter and Histogram resolve and
 * hash their labels on every observation, which costs more than a small RPC on hot paths; here
 * a sample is one map lookup and a few additions. Label values must come from small fixed sets.
 */
import type { Registry } from 'prom-client';

interface Series {
  readonly labels: Record<string, string>;
  count: number;
  sum: number;
  /** Non-cumulative counts per bucket; the last slot is +Inf. */
  readonly buckets: number[];
}

export interface RequestMetricsOptions<Label extends string> {
  readonly counterName: string;
  readonly counterHelp: string;
  readonly histogramName: string;
  readonly histogramHelp: string;
  readonly labelNames: readonly Label[];
  readonly buckets: readonly number[];
}

export class RequestMetrics<Label extends string> {
  private readonly series = new Map<string, Series>();

  constructor(
    private readonly options: RequestMetricsOptions<Label>,
    registry: Registry,
  ) {
    const counter = {
      name: options.counterName,
      help: options.counterHelp,
      type: 'counter',
      aggregator: 'sum',
      get: async () => ({ ...counter, values: this.counterValues() }),
    };
    const histogram = {
      name: options.histogramName,
      help: options.histogramHelp,
      type: 'histogram',
      aggregator: 'sum',
      get: async () => ({ ...histogram, values: this.histogramValues() }),
    };
    registry.registerMetric(counter as never);
    registry.registerMetric(histogram as never);
  }

  record(labels: Readonly<Record<Label, string>>, seconds: number): void {
    let key = '';
    for (const name of this.options.labelNames) key += `${labels[name]}\u0000`;
    let series = this.series.get(key);
    if (!series) {
      series = {
        labels: { ...labels },
        count: 0,
        sum: 0,
        buckets: new Array<number>(this.options.buckets.length + 1).fill(0),
      };
      this.series.set(key, series);
    }
    series.count++;
    series.sum += seconds;
    const bounds = this.options.buckets;
    let slot = 0;
    while (slot < bounds.length && seconds > (bounds[slot] as number)) slot++;
    (series.buckets[slot] as number)++;
  }

  private counterValues() {
    return [...this.series.values()].map((s) => ({ labels: s.labels, value: s.count }));
  }

  private histogramValues() {
    const name = this.options.histogramName;
    return [...this.series.values()].flatMap((s) => {
      let cumulative = 0;
      const buckets = [...this.options.buckets, Infinity].map((bound, index) => {
        cumulative += s.buckets[index] as number;
        return {
          metricName: `${name}_bucket`,
          labels: { ...s.labels, le: bound === Infinity ? '+Inf' : bound },
          value: cumulative,
        };
      });
      return [
        ...buckets,
        { metricName: `${name}_sum`, labels: s.labels, value: s.sum },
        { metricName: `${name}_count`, labels: s.labels, value: s.count },
      ];
    });
  }
}
