/** The learning bench's replay on a tiny catalog: the real run API learns what the catalog's text cannot find, and the chart is valid SVG. */
import { DOMParser } from "@xmldom/xmldom";
import { describe, expect, it } from "vitest";
import { learningChart } from "../../bench/learning/learning-bench.js";
import { replayCurve } from "../../bench/learning/replay.js";
import type { ReplaySet } from "../../bench/learning/sets.js";

const tool = (name: string, description: string) => ({ name, description, inputSchema: { type: "object", properties: {} }, execute: () => ({ ok: true }) });

/** Requests in words the descriptions never use: only learning can tie them to their tools. */
function tinySet(): ReplaySet {
  const tools = [
    tool("send_invoice", "Create and email an invoice."),
    tool("get_forecast", "Weather forecast for a city."),
    tool("book_room", "Reserve a meeting room."),
  ];
  const words: Record<string, string[]> = {
    send_invoice: ["bill", "client", "payment"],
    get_forecast: ["umbrella", "rain", "sunny"],
    book_room: ["huddle", "space", "slot"],
  };
  const past = Object.entries(words).flatMap(([name, w]) =>
    Array.from({ length: 6 }, (_, i) => ({ id: `${name}-${i}`, query: `${w[i % 3]} ${w[(i + 1) % 3]} please ${i}`, relevant: [`plugin:tiny:${name}`] })),
  );
  const heldOut = Object.entries(words).map(([name, w]) => ({ id: `${name}-h`, query: `${w[0]} ${w[2]}`, relevant: [`plugin:tiny:${name}`] }));
  return { name: "tiny", plugins: new Map([["tiny", tools]]), past, heldOut };
}

describe("learning replay", () => {
  it("scores held-out requests before and after replayed sessions through the run API", async () => {
    const set = tinySet();
    const curve = await replayCurve(set, { checkpoints: [0, set.past.length] });
    expect(curve.map((p) => p.sessions)).toEqual([0, 18]);
    expect(curve[0]!.top1).toBeLessThan(0.5);
    expect(curve[1]!.top1).toBe(1);
    // The requests the catalog could not answer are answered by what was learned.
    expect(curve[1]!.learnedTop1).toBeGreaterThanOrEqual(1 - curve[0]!.top1 - 1e-9);
    expect(curve[1]!.active).toBeGreaterThan(0);
    const svg = learningChart({
      curves: [{ set: "tiny", tools: 3, past: 18, heldOut: 3, points: curve }],
      poisoning: [],
      cost: { set: "tiny", records: 0, heapBytes: 0, p50OffUs: 0, p50OnUs: 0 },
      latency: [],
      ceiling: {
        set: "tiny",
        minSessions: 3,
        allPairs: { top1: 0, top5: 0 },
        countedPairs: { top1: 0, top5: 0 },
        linear: { top1: 0, top5: 0 },
        linearFused: { top1: 0, top5: 0 },
        linearWithoutRule: { top1: 0, top5: 0 },
      },
      quick: true,
    });
    const doc = new DOMParser().parseFromString(svg, "image/svg+xml");
    expect(doc.documentElement?.nodeName).toBe("svg");
  });
});
