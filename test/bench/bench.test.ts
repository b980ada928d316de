/**
 * The benchmark suite's own checks: the payload benchmark on tiny catalogs gives well-formed
 * figures (no timing assertions: this machine may be slow or busy), the chart writer produces
 * SVG that an XML parser accepts, and the README section is replaced between its markers only.
 */
import { DOMParser, type Document as XmlDocument } from "@xmldom/xmldom";
import { describe, expect, it } from "vitest";
import { chartsFor } from "../../bench/charts/charts.js";
import { barChart, lineChart } from "../../bench/charts/svg.js";
import { isExpectedTool } from "../../bench/harness/expected.js";
import { silent } from "../../bench/harness/progress.js";
import type { BenchResults } from "../../bench/harness/results.js";
import { distribution } from "../../bench/harness/stats.js";
import { findCrossover, PAYLOAD_MODES, runPayloadBench, SYNTHETIC_REQUEST, type PayloadResult } from "../../bench/payload/payload.js";
import { README_END, README_START, readmeSection, replaceReadmeSection } from "../../bench/report/readme.js";
import { summaryMarkdown } from "../../bench/report/summary.js";
import { fakeResults as fakeResultsOf } from "./fake-results.js";

/** Parses SVG text strictly: any XML warning or error fails the test. */
function parseSvg(svg: string): XmlDocument {
  const problems: string[] = [];
  const doc = new DOMParser({ onError: (level, message) => void problems.push(`${level}: ${message}`) }).parseFromString(svg, "image/svg+xml");
  expect(problems).toEqual([]);
  expect(doc.documentElement?.nodeName).toBe("svg");
  expect(doc.documentElement?.getAttribute("xmlns")).toBe("http://www.w3.org/2000/svg");
  return doc;
}

function fakeResults(payload: PayloadResult): BenchResults {
  return fakeResultsOf({ payload: { status: "ok", ms: 1, result: payload } }, "test <cpu> & co");
}

describe("payload benchmark on tiny catalogs", () => {
  let result: PayloadResult;

  // Slow on purpose: the payload bench's every mode through a real gateway and scripted provider.
  it("measures every mode against direct through the real gateway", async () => {
    result = await runPayloadBench({ sizes: [3, 12], data: { skipped: "not used in this test" }, log: silent });
    expect(result.tokenizer.encoding).toBe("o200k_base");
    expect(result.mcpSkipped).toBe("not used in this test");
    expect(result.problems).toEqual([]);
    expect(result.catalogs.map((c) => c.tools)).toEqual([3, 12]);
    for (const catalog of result.catalogs) {
      expect(catalog.kind).toBe("synthetic");
      expect(catalog.expectedTool).toBe(SYNTHETIC_REQUEST.expected);
      expect(catalog.modes.map((m) => m.requested)).toEqual([...PAYLOAD_MODES]);
      for (const m of catalog.modes) {
        expect(m.finalTool).toBe(SYNTHETIC_REQUEST.expected);
        expect(m.firstRequestBytes).toBeGreaterThan(0);
        expect(m.firstRequestTokens).toBeGreaterThan(0);
        expect(m.firstRequestTokens).toBeLessThan(m.firstRequestBytes);
        expect(m.turnBytes).toBeGreaterThan(m.firstRequestBytes);
        expect(m.turnTokens).toBeGreaterThan(m.firstRequestTokens);
        expect(m.roundTrips).toBeGreaterThanOrEqual(2);
        expect(m.toolsBytes + m.instructionsBytes).toBeLessThan(m.firstRequestBytes);
      }
      const direct = catalog.modes.find((m) => m.requested === "direct")!;
      expect(direct.firstRequestRatio).toBe(1);
      expect(direct.turnRatio).toBe(1);
      expect(direct.declaredTools).toBe(catalog.tools);
      expect(direct.instructionsBytes).toBe(0);
      const tools = catalog.modes.find((m) => m.requested === "tools")!;
      expect(tools.declaredTools).toBe(3);
      expect(tools.upfrontSchemas).toBe(0);
    }
    // Direct grows with the catalog; the search modes' first request does not.
    const [small, large] = result.catalogs;
    expect(large!.modes[0]!.firstRequestBytes).toBeGreaterThan(small!.modes[0]!.firstRequestBytes * 3);
    expect(large!.modes.find((m) => m.requested === "tools")!.firstRequestBytes).toBe(small!.modes.find((m) => m.requested === "tools")!.firstRequestBytes);

    expect(result.crossover?.searched).toEqual([1, 12]);
    expect(result.crossover?.byMode.map((c) => c.mode)).toEqual(["code", "tools", "directory"]);
    for (const c of result.crossover!.byMode) {
      for (const n of [c.turnBytes, c.firstRequestBytes]) {
        if (n === null) continue;
        expect(n).toBeGreaterThanOrEqual(1);
        expect(n).toBeLessThanOrEqual(12);
      }
    }
    const sizes = result.curve.map((p) => p.tools);
    expect(sizes).toEqual([...sizes].sort((a, b) => a - b));
    expect(sizes).toEqual(expect.arrayContaining([1, 3, 12]));
  }, 120_000);

  it("draws valid SVG charts and a summary from the result", () => {
    const results = fakeResults(result);
    const charts = chartsFor(results);
    expect(charts.map((c) => c.file)).toEqual(["payload-first-request.svg", "payload-turn.svg"]);
    for (const chart of charts) {
      const doc = parseSvg(chart.svg);
      expect(doc.getElementsByTagName("polyline").length).toBe(PAYLOAD_MODES.length);
      expect(doc.getElementsByTagName("title")[0]?.textContent).toBe(chart.title);
    }
    const summary = summaryMarkdown(results, { chartsDir: "charts" });
    expect(summary).toContain("| synthetic-12 |");
    expect(summary).toContain("![bytes over a whole turn by catalog size and mode](charts/payload-turn.svg)");
  });
});

describe("chart writer", () => {
  it("escapes text and accepts log axes, gaps and dashed series", () => {
    const line = lineChart({
      title: `latency <p99> & "friends"`,
      subtitle: "a subtitle long enough to wrap onto a second line of the chart, which the writer must split at spaces ".repeat(2),
      xLabel: "x",
      yLabel: "y",
      xLog: true,
      yLog: true,
      series: [
        {
          name: "a & b",
          points: [
            [1, 1],
            [10, 100],
            [1000, 10_000],
          ],
        },
        {
          name: "baseline",
          dashed: true,
          color: 0,
          points: [
            [1, 2],
            [1000, Number.NaN],
          ],
        },
      ],
      markers: [{ x: 10, label: "crossover <10>" }],
    });
    const doc = parseSvg(line);
    expect(doc.getElementsByTagName("polyline").length).toBe(2);
    expect(line).toContain("latency &lt;p99&gt; &amp; &quot;friends&quot;");
    const bars = barChart({
      title: "bars",
      yLabel: "v",
      labels: true,
      categories: ["one", "two"],
      series: [
        { name: "s1", values: [1, undefined] },
        { name: "s2", values: [0.5, 2] },
      ],
    });
    expect(parseSvg(bars).getElementsByTagName("rect").length).toBe(1 + 3 + 2); // background, three bars (one gap), two legend keys
    expect(() => barChart({ title: "empty", yLabel: "v", categories: ["a"], series: [{ name: "s", values: [Number.NaN] }] })).toThrow(/no finite values/);
  });
});

describe("helpers", () => {
  it("finds the crossover by bisection", async () => {
    const probes: number[] = [];
    const wins = async (n: number) => (probes.push(n), n >= 37);
    expect(await findCrossover(1000, wins)).toBe(37);
    expect(await findCrossover(1000, async () => false)).toBeNull();
    expect(await findCrossover(1000, async () => true)).toBe(1);
    expect(probes.length).toBeLessThan(15);
  });

  it("accepts numbered revisions of the expected tool only", () => {
    expect(isExpectedTool("plugin:acme:crm_create_contact", "plugin:acme:crm_create_contact")).toBe(true);
    expect(isExpectedTool("plugin:acme:crm_create_contact_v3", "plugin:acme:crm_create_contact")).toBe(true);
    expect(isExpectedTool("plugin:acme:crm_create_contact_vx", "plugin:acme:crm_create_contact")).toBe(false);
    expect(isExpectedTool("plugin:acme:crm_create_lead", "plugin:acme:crm_create_contact")).toBe(false);
    expect(isExpectedTool(undefined, "plugin:acme:crm_create_contact")).toBe(false);
  });

  it("computes nearest-rank percentiles", () => {
    const d = distribution(Array.from({ length: 100 }, (_, i) => 100 - i));
    expect([d.min, d.p50, d.p90, d.p99, d.max]).toEqual([1, 50, 90, 99, 100]);
  });

  it("replaces only the README text between the markers", () => {
    const readme = `# title\n\nintro\n\n${README_START}\nold figures\n${README_END}\n\n## after\n`;
    const next = replaceReadmeSection(readme, "new figures");
    expect(next).toBe(`# title\n\nintro\n\n${README_START}\nnew figures\n${README_END}\n\n## after\n`);
    expect(replaceReadmeSection(next, "new figures")).toBe(next);
    expect(() => replaceReadmeSection("# no markers\n", "x")).toThrow(/markers/);
    expect(() => replaceReadmeSection(`${README_END}\n${README_START}\n`, "x")).toThrow(/exactly one/);
  });

  it("builds the README section from results alone", () => {
    const section = readmeSection(
      fakeResults({ tokenizer: { package: "gpt-tokenizer", version: "4.0.0", encoding: "o200k_base" }, catalogs: [], curve: [], problems: [] }),
      {
        chartsDir: "bench/results/charts",
        charts: ["payload-turn.svg"],
        summaryPath: "bench/results/SUMMARY.md",
      },
    );
    expect(section).toContain("| figure | toolsearch | baseline | ratio |");
    expect(section).toContain("](bench/results/charts/payload-turn.svg)");
    expect(section).not.toContain("gateway-throughput.svg");
  });
});
