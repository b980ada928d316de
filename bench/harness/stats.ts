/**
 * Latency statistics over raw samples (milliseconds). Percentiles use the nearest-rank method
 * on the sorted samples, so p99 of 100 samples is the 99th value, never an interpolation
 * between values nobody measured.
 */

export interface Distribution {
  n: number;
  min: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  mean: number;
}

/** The p-th percentile (0–100) of samples in any order, nearest-rank. */
export function percentile(samples: readonly number[], p: number): number {
  return nearestRank(
    [...samples].sort((a, b) => a - b),
    p,
  );
}

function nearestRank(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

export function distribution(samples: readonly number[]): Distribution {
  const sorted = [...samples].sort((a, b) => a - b);
  const sum = sorted.reduce((s, x) => s + x, 0);
  return {
    n: sorted.length,
    min: sorted[0] ?? Number.NaN,
    p50: nearestRank(sorted, 50),
    p90: nearestRank(sorted, 90),
    p99: nearestRank(sorted, 99),
    max: sorted.at(-1) ?? Number.NaN,
    mean: sorted.length === 0 ? Number.NaN : sum / sorted.length,
  };
}

/** Rounds for JSON output: 3 significant decimals for small numbers, fewer for large ones. */
export function round(x: number, digits = 3): number {
  if (!Number.isFinite(x)) return x;
  const factor = 10 ** digits;
  return Math.round(x * factor) / factor;
}

export function roundDistribution(d: Distribution, digits = 3): Distribution {
  return {
    n: d.n,
    min: round(d.min, digits),
    p50: round(d.p50, digits),
    p90: round(d.p90, digits),
    p99: round(d.p99, digits),
    max: round(d.max, digits),
    mean: round(d.mean, digits),
  };
}

/** The median of samples in any order (the mean of the middle two for an even count); NaN when empty. */
export function median(samples: readonly number[]): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** a / b, rounded; NaN-safe for an empty baseline. */
export function ratio(a: number, b: number, digits = 4): number {
  return b === 0 ? Number.NaN : round(a / b, digits);
}
