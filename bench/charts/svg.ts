/**
 * A tiny SVG chart writer: line charts (linear or log axes) and grouped bar charts, enough for
 * the benchmark figures. Why no library: the charting libraries on the registry either need a
 * DOM (d3, Chart.js, Vega render through a browser or jsdom) or a native canvas build
 * (node-canvas, which downloads prebuilt binaries at install), and all are far bigger than the
 * two chart kinds needed here. Plain strings of SVG are deterministic (a chart changes only
 * when its figures do, so diffs of committed charts mean something), render on GitHub as
 * images, and are checked by test/bench with an XML parser.
 */

export interface LineSeries {
  name: string;
  points: ReadonlyArray<readonly [number, number]>;
  /** Dashed stroke (e.g. a baseline, or a p99 beside its p50). */
  dashed?: boolean;
  /** Palette index (default: the series' position), so related series can share a colour. */
  color?: number;
}

export interface LineChartSpec {
  title: string;
  subtitle?: string;
  xLabel: string;
  yLabel: string;
  xLog?: boolean;
  yLog?: boolean;
  series: readonly LineSeries[];
  /** Vertical marker lines, e.g. a crossover size. */
  markers?: ReadonlyArray<{ x: number; label: string }>;
  formatX?: (x: number) => string;
  formatY?: (y: number) => string;
  width?: number;
  height?: number;
}

export interface BarSeries {
  name: string;
  /** One value per category; NaN or undefined leaves a gap. */
  values: ReadonlyArray<number | undefined>;
}

export interface BarChartSpec {
  title: string;
  subtitle?: string;
  yLabel: string;
  categories: readonly string[];
  series: readonly BarSeries[];
  yLog?: boolean;
  /** Upper end of the y axis (default: from the data). */
  yMax?: number;
  formatY?: (y: number) => string;
  /** Print each bar's value above it. */
  labels?: boolean;
  width?: number;
  height?: number;
}

/** Okabe–Ito: distinguishable with the common colour-vision deficiencies. */
const PALETTE = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000"];

const FONT = 'font-family="-apple-system,Segoe UI,Helvetica,Arial,sans-serif"';
const MARGIN = { top: 70, right: 24, bottom: 58, left: 78 };

function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (c) => ({ "<": "&lt;", ">": "&gt;", "&": "&amp;", '"': "&quot;", "'": "&apos;" })[c]!);
}

const fmt = (n: number): string => (Number.isInteger(n) ? String(n) : n.toFixed(2).replace(/\.?0+$/, ""));

/** Compact numbers for axis ticks: 1.5k, 2M, 0.25. */
export function compactNumber(n: number): string {
  const abs = Math.abs(n);
  if (abs >= 1e9) return `${fmt(n / 1e9)}G`;
  if (abs >= 1e6) return `${fmt(n / 1e6)}M`;
  if (abs >= 1e3) return `${fmt(n / 1e3)}k`;
  if (abs === 0) return "0";
  if (abs < 0.01) return n.toExponential(0);
  return fmt(Number(n.toPrecision(3)));
}

/** Byte counts for axes, in SI units so that log-scale ticks (powers of ten) read round: 1 kB, 10 kB, 1 MB. */
export function compactBytes(n: number): string {
  if (n >= 1e9) return `${fmt(Number((n / 1e9).toPrecision(3)))} GB`;
  if (n >= 1e6) return `${fmt(Number((n / 1e6).toPrecision(3)))} MB`;
  if (n >= 1e3) return `${fmt(Number((n / 1e3).toPrecision(3)))} kB`;
  return `${fmt(n)} B`;
}

/** Splits text into lines of at most `max` characters at spaces. */
function wrap(text: string, max: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(" ")) {
    if (line !== "" && line.length + 1 + word.length > max) {
      lines.push(line);
      line = word;
    } else line = line === "" ? word : `${line} ${word}`;
  }
  if (line !== "") lines.push(line);
  return lines;
}

interface Scale {
  map(v: number): number;
  ticks: number[];
}

function niceStep(span: number, count: number): number {
  const raw = span / Math.max(1, count);
  const power = 10 ** Math.floor(Math.log10(raw));
  const unit = raw / power;
  return (unit <= 1 ? 1 : unit <= 2 ? 2 : unit <= 5 ? 5 : 10) * power;
}

function linearScale(min: number, max: number, from: number, to: number, tickCount = 5): Scale {
  const lo = Math.min(0, min);
  let hi = max <= lo ? lo + 1 : max;
  const step = niceStep(hi - lo, tickCount);
  hi = Math.ceil(hi / step) * step;
  const ticks: number[] = [];
  for (let t = lo; t <= hi + step / 1e6; t += step) ticks.push(Number(t.toPrecision(12)));
  return { map: (v) => from + ((v - lo) / (hi - lo)) * (to - from), ticks };
}

function logScale(min: number, max: number, from: number, to: number): Scale {
  const lo = Math.floor(Math.log10(Math.max(min, Number.MIN_VALUE)));
  let hi = Math.ceil(Math.log10(Math.max(max, Number.MIN_VALUE)));
  if (hi <= lo) hi = lo + 1;
  const ticks: number[] = [];
  for (let e = lo; e <= hi; e += 1) ticks.push(10 ** e);
  return { map: (v) => from + ((Math.log10(Math.max(v, 10 ** lo)) - lo) / (hi - lo)) * (to - from), ticks };
}

function frame(width: number, height: number, title: string, subtitle: string | undefined, body: string[]): string {
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="${escapeXml(title)}">`,
    `<title>${escapeXml(title)}</title>`,
    `<rect x="0" y="0" width="${width}" height="${height}" fill="#ffffff"/>`,
    `<text x="${MARGIN.left}" y="24" ${FONT} font-size="16" font-weight="600" fill="#111111">${escapeXml(title)}</text>`,
    ...(subtitle ? wrap(subtitle, Math.floor((width - MARGIN.left - 8) / 6)).slice(0, 2) : []).map(
      (line, i) => `<text x="${MARGIN.left}" y="${41 + i * 13}" ${FONT} font-size="11" fill="#555555">${escapeXml(line)}</text>`,
    ),
    ...body,
    "</svg>",
    "",
  ]
    .filter((line) => line !== "")
    .join("\n");
}

function legend(names: ReadonlyArray<{ name: string; dashed?: boolean; color?: number }>, x: number, y: number, kind: "line" | "box"): string[] {
  const out: string[] = [];
  let cx = x;
  for (const [i, s] of names.entries()) {
    const color = PALETTE[(s.color ?? i) % PALETTE.length]!;
    out.push(
      kind === "line"
        ? `<line x1="${cx}" y1="${y - 4}" x2="${cx + 18}" y2="${y - 4}" stroke="${color}" stroke-width="2.5"${s.dashed ? ' stroke-dasharray="5 3"' : ""}/>`
        : `<rect x="${cx}" y="${y - 10}" width="12" height="12" fill="${color}"/>`,
    );
    out.push(`<text x="${cx + 23}" y="${y}" ${FONT} font-size="12" fill="#222222">${escapeXml(s.name)}</text>`);
    cx += 23 + s.name.length * 7 + 18;
  }
  return out;
}

function axes(
  height: number,
  x0: number,
  x1: number,
  y0: number,
  y1: number,
  yScale: Scale,
  yFormat: (v: number) => string,
  yLabel: string,
  xLabel: string | undefined,
): string[] {
  const out: string[] = [];
  for (const t of yScale.ticks) {
    const y = yScale.map(t);
    out.push(`<line x1="${x0}" y1="${fmt(y)}" x2="${x1}" y2="${fmt(y)}" stroke="#e5e5e5" stroke-width="1"/>`);
    out.push(`<text x="${x0 - 6}" y="${fmt(y + 4)}" ${FONT} font-size="11" fill="#444444" text-anchor="end">${escapeXml(yFormat(t))}</text>`);
  }
  out.push(`<line x1="${x0}" y1="${y0}" x2="${x1}" y2="${y0}" stroke="#333333" stroke-width="1"/>`);
  out.push(`<line x1="${x0}" y1="${y0}" x2="${x0}" y2="${y1}" stroke="#333333" stroke-width="1"/>`);
  const midY = (y0 + y1) / 2;
  out.push(
    `<text x="16" y="${fmt(midY)}" ${FONT} font-size="12" fill="#222222" text-anchor="middle" transform="rotate(-90 16 ${fmt(midY)})">${escapeXml(yLabel)}</text>`,
  );
  if (xLabel)
    out.push(`<text x="${fmt((x0 + x1) / 2)}" y="${height - 24}" ${FONT} font-size="12" fill="#222222" text-anchor="middle">${escapeXml(xLabel)}</text>`);
  return out;
}

/** The chart's size and its plotting rectangle (x0..x1 left to right, y0 bottom to y1 top). */
function plotArea(spec: { width?: number; height?: number }) {
  const width = spec.width ?? 720;
  const height = spec.height ?? 420;
  return { width, height, x0: MARGIN.left, x1: width - MARGIN.right, y0: height - MARGIN.bottom, y1: MARGIN.top + 8 };
}

export function lineChart(spec: LineChartSpec): string {
  const { width, height, x0, x1, y0, y1 } = plotArea(spec);
  const points = spec.series.flatMap((s) => s.points).filter(([x, y]) => Number.isFinite(x) && Number.isFinite(y));
  if (points.length === 0) throw new Error(`lineChart "${spec.title}": no finite points`);
  const xs = points.map(([x]) => x);
  const ys = points.map(([, y]) => y);
  const xScale = spec.xLog ? logScale(Math.min(...xs), Math.max(...xs), x0, x1) : linearScale(Math.min(...xs), Math.max(...xs), x0, x1);
  const yScale = spec.yLog ? logScale(Math.min(...ys), Math.max(...ys), y0, y1) : linearScale(Math.min(...ys), Math.max(...ys), y0, y1);
  const xFormat = spec.formatX ?? compactNumber;
  const yFormat = spec.formatY ?? compactNumber;
  const body = axes(height, x0, x1, y0, y1, yScale, yFormat, spec.yLabel, spec.xLabel);
  for (const t of xScale.ticks) {
    const x = xScale.map(t);
    body.push(`<line x1="${fmt(x)}" y1="${y0}" x2="${fmt(x)}" y2="${y0 + 5}" stroke="#333333" stroke-width="1"/>`);
    body.push(`<text x="${fmt(x)}" y="${y0 + 18}" ${FONT} font-size="11" fill="#444444" text-anchor="middle">${escapeXml(xFormat(t))}</text>`);
  }
  for (const [i, m] of [...(spec.markers ?? [])].sort((a, b) => a.x - b.x).entries()) {
    const x = xScale.map(m.x);
    body.push(`<line x1="${fmt(x)}" y1="${y0}" x2="${fmt(x)}" y2="${y1}" stroke="#999999" stroke-width="1" stroke-dasharray="2 3"/>`);
    // Staggered so that markers a few pixels apart keep readable labels.
    body.push(
      `<text x="${fmt(x + 4)}" y="${y1 + 12 + 13 * i}" ${FONT} font-size="10" fill="#555555" stroke="#ffffff" stroke-width="3" paint-order="stroke">${escapeXml(m.label)}</text>`,
    );
  }
  for (const [i, s] of spec.series.entries()) {
    const color = PALETTE[(s.color ?? i) % PALETTE.length]!;
    const pts = s.points.filter(([x, y]) => Number.isFinite(x) && Number.isFinite(y)).map(([x, y]) => `${fmt(xScale.map(x))},${fmt(yScale.map(y))}`);
    if (pts.length === 0) continue;
    body.push(`<polyline fill="none" stroke="${color}" stroke-width="2.5"${s.dashed ? ' stroke-dasharray="6 4"' : ""} points="${pts.join(" ")}"/>`);
    for (const p of pts) {
      const [cx, cy] = p.split(",");
      body.push(`<circle cx="${cx}" cy="${cy}" r="3.5" fill="${color}"/>`);
    }
  }
  body.push(...legend(spec.series, x0, height - 6, "line"));
  return frame(width, height, spec.title, spec.subtitle, body);
}

export function barChart(spec: BarChartSpec): string {
  const { width, height, x0, x1, y0, y1 } = plotArea(spec);
  const values = spec.series.flatMap((s) => s.values).filter((v): v is number => v !== undefined && Number.isFinite(v));
  if (values.length === 0) throw new Error(`barChart "${spec.title}": no finite values`);
  const max = spec.yMax ?? Math.max(...values);
  const yScale = spec.yLog ? logScale(Math.min(...values.filter((v) => v > 0)), max, y0, y1) : linearScale(0, max, y0, y1);
  const yFormat = spec.formatY ?? compactNumber;
  const body = axes(height, x0, x1, y0, y1, yScale, yFormat, spec.yLabel, undefined);
  const groupWidth = (x1 - x0) / Math.max(1, spec.categories.length);
  const barWidth = Math.min(36, (groupWidth * 0.8) / Math.max(1, spec.series.length));
  const base = spec.yLog ? yScale.map(yScale.ticks[0]!) : yScale.map(0);
  for (const [c, category] of spec.categories.entries()) {
    const gx = x0 + groupWidth * c + (groupWidth - barWidth * spec.series.length) / 2;
    body.push(
      `<text x="${fmt(x0 + groupWidth * (c + 0.5))}" y="${y0 + 18}" ${FONT} font-size="11" fill="#444444" text-anchor="middle">${escapeXml(category)}</text>`,
    );
    for (const [i, s] of spec.series.entries()) {
      const v = s.values[c];
      if (v === undefined || !Number.isFinite(v)) continue;
      const top = yScale.map(spec.yLog ? Math.max(v, yScale.ticks[0]!) : v);
      const x = gx + barWidth * i;
      body.push(
        `<rect x="${fmt(x)}" y="${fmt(Math.min(top, base))}" width="${fmt(barWidth - 2)}" height="${fmt(Math.abs(base - top))}" fill="${PALETTE[i % PALETTE.length]}"><title>${escapeXml(`${s.name} · ${category}: ${yFormat(v)}`)}</title></rect>`,
      );
      if (spec.labels) {
        body.push(
          `<text x="${fmt(x + (barWidth - 2) / 2)}" y="${fmt(Math.min(top, base) - 3)}" ${FONT} font-size="9" fill="#333333" text-anchor="middle">${escapeXml(yFormat(v))}</text>`,
        );
      }
    }
  }
  body.push(...legend(spec.series, x0, height - 6, "box"));
  return frame(width, height, spec.title, spec.subtitle, body);
}
