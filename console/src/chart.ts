/**
 * A time-series chart (uPlot): built when mounted, fed new data on each render, sized to its
 * container, destroyed when unmounted. uPlot draws on a canvas and styles through the CSSOM, which
 * the console's Content-Security-Policy allows (it refuses inline style attributes and <style>).
 */
import { html } from "htm/preact";
import { useEffect, useRef } from "preact/hooks";
import uPlot from "uplot";

export interface Line {
  label: string;
  values: Array<number | null>;
  color: string;
  /** Dashed: a baseline (what direct mode would have sent). */
  dash?: boolean;
}

export function TimeChart({ title, times, lines, unit }: { title: string; times: number[]; lines: Line[]; unit: (n: number) => string }) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const data = [times.map((t) => t / 1000), ...lines.map((l) => l.values)] as uPlot.AlignedData;

  useEffect(() => {
    const target = box.current;
    if (target === null) return;
    const options: uPlot.Options = {
      width: Math.max(300, target.clientWidth),
      height: 200,
      series: [
        {},
        ...lines.map((l) => ({
          label: l.label,
          stroke: l.color,
          width: 2,
          points: { show: true, size: 4 },
          ...(l.dash ? { dash: [6, 4] } : {}),
          value: (_u: uPlot, v: number | null) => (v === null ? "–" : unit(v)),
        })),
      ],
      axes: [{}, { values: (_u: uPlot, ticks: number[]) => ticks.map(unit), size: 70 }],
      legend: { live: true },
    };
    plot.current = new uPlot(options, data, target);
    const resize = new ResizeObserver(() => plot.current?.setSize({ width: Math.max(300, target.clientWidth), height: 200 }));
    resize.observe(target);
    return () => {
      resize.disconnect();
      plot.current?.destroy();
      plot.current = null;
    };
  }, [lines.length]);

  useEffect(() => {
    plot.current?.setData(data);
  });

  return html`<figure class="chart">
    <figcaption>${title}</figcaption>
    <div ref=${box} class="plot"></div>
  </figure>`;
}
