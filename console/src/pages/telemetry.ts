/** Live telemetry: totals since start, and charts of the last fifteen minutes (ten-second buckets), refreshed every five seconds. */
import { html } from "htm/preact";
import { api } from "../api.js";
import { TimeChart } from "../chart.js";
import { bytes, count, ms, saved } from "../format.js";
import { usePoll } from "../poll.js";
import type { Latency, TelemetryAnswer } from "../../../src/admin/admin-wire-types.js";
import { Failure, Loading } from "../ui.js";

const mean = (l: Latency) => (l.count > 0 ? l.sumMs / l.count : null);
const plain = (n: number) => (Number.isInteger(n) ? String(n) : n.toFixed(1));

export function TelemetryPage() {
  const live = usePoll(() => api<TelemetryAnswer>("/telemetry?window=90"), 5_000);
  if (live.error) return html`<${Failure} error=${live.error} />`;
  if (!live.data) return html`<${Loading} />`;
  const { totals, series } = live.data;
  const times = series.map((b) => b.t);
  const shown = totals.bytes.upfront;
  return html`<section>
    <h2>Live telemetry</h2>
    <p class="lead">Since ${new Date(totals.since).toLocaleString()}.</p>
    <div class="cards">
      <div class="card">
        <span class="big">${count(totals.runs.total)}</span> runs<small
          >${totals.runs.active} running, ${totals.runs.fallbacks} fell back;
          ${
            Object.entries(totals.runs.byMode)
              .map(([m, n]) => `${m} ${n}`)
              .join(", ") || "–"
          }</small
        >
      </div>
      <div class="card">
        <span class="big">${count(totals.searches.total)}</span> searches<small
          >mean ${ms(mean(totals.searches.latency) ?? 0)}, max ${ms(totals.searches.latency.maxMs)}</small
        >
      </div>
      <div class="card">
        <span class="big">${count(totals.calls.ok)}</span> calls ok<small>${count(totals.calls.failed)} failed${codes(totals.calls.byCode)}</small>
      </div>
      <div class="card">
        <span class="big">${count(totals.codeRuns.ok + totals.codeRuns.failed)}</span> code bodies<small
          >${count(totals.codeRuns.failed)} failed${codes(totals.codeRuns.byCode)}; mean ${ms(mean(totals.codeRuns.latency) ?? 0)}</small
        >
      </div>
      <div class="card saved">
        <span class="big">${saved(shown, totals.bytes.direct)}</span> bytes saved<small
          >${bytes(shown)} sent up front, ${bytes(totals.bytes.direct)} in direct mode</small
        >
      </div>
    </div>
    <div class="charts">
      <${TimeChart}
        title="Bytes up front vs direct mode"
        times=${times}
        unit=${bytes}
        lines=${[
          { label: "sent", values: series.map((b) => b.upfrontBytes), color: "#2a7ab0" },
          { label: "direct would send", values: series.map((b) => b.directBytes), color: "#c0392b", dash: true },
        ]}
      />
      <${TimeChart}
        title="Calls and errors"
        times=${times}
        unit=${plain}
        lines=${[
          { label: "calls", values: series.map((b) => b.calls), color: "#27ae60" },
          { label: "call errors", values: series.map((b) => b.callErrors), color: "#c0392b" },
          { label: "code errors", values: series.map((b) => b.codeErrors), color: "#8e44ad" },
        ]}
      />
      <${TimeChart}
        title="Latency (mean per 10 s)"
        times=${times}
        unit=${ms}
        lines=${[
          { label: "search", values: series.map((b) => mean(b.search)), color: "#2a7ab0" },
          { label: "code body", values: series.map((b) => mean(b.code)), color: "#e67e22" },
          { label: "tool call", values: series.map((b) => mean(b.call)), color: "#27ae60" },
        ]}
      />
    </div>
  </section>`;
}

function codes(byCode: Record<string, number>): string {
  const list = Object.entries(byCode).map(([code, n]) => `${code} ${n}`);
  return list.length > 0 ? ` (${list.join(", ")})` : "";
}
