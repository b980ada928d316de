import { describe, expect, it } from "vitest";
import { planQuery } from "../../../bench/lib/fts5-bm25/query-plan.js";
import type { TermStats } from "../../../bench/lib/fts5-bm25/query-plan.js";

const STATS: Record<string, TermStats> = {
  stock: { all: 26, named: 10 },
  pric: { all: 75, named: 30 },
  get: { all: 3000, named: 250 },
  data: { all: 2500, named: 900 },
  syn__2: { all: 2700, named: 0 },
};
const stats = (t: string): TermStats => STATS[t] ?? { all: 0, named: 0 };

describe("planQuery", () => {
  it("keeps rare terms whole, narrows common ones to names, drops the rest", () => {
    const plan = planQuery(["get", "syn__2", "stock", "pric", "data"], stats, 0, 400);
    expect(plan.pruned).toBe(true);
    expect(plan.planned).toBe('"stock" OR "pric" OR {name ident} : "get"');
    expect(plan.full).toBe('"get" OR "syn__2" OR "stock" OR "pric" OR "data"');
  });
  it("leaves a query of rare terms as it is", () => {
    const plan = planQuery(["stock", "pric"], stats, 0, 400);
    expect(plan).toEqual({ planned: '"stock" OR "pric"', full: '"stock" OR "pric"', pruned: false });
  });
  it("keeps the rarest of only-common terms, in its cheapest form", () => {
    expect(planQuery(["get", "data"], stats, 0, 400).planned).toBe('{name ident} : "data" OR {name ident} : "get"');
    expect(planQuery(["data", "syn__2"], stats, 0, 400).planned).toBe('{name ident} : "data"');
    expect(planQuery(["syn__2"], stats, 0, 400)).toMatchObject({ planned: '"syn__2"', pruned: false });
  });
  it("keeps a common verb in names while it names at most a quarter of a big catalog", () => {
    const big: Record<string, TermStats> = {
      contact: { all: 300, named: 250 },
      create: { all: 1300, named: 1250 },
      new: { all: 6000, named: 0 },
      list: { all: 3000, named: 3000 },
    };
    const s = (t: string): TermStats => big[t] ?? { all: 0, named: 0 };
    expect(planQuery(["create", "new", "contact"], s, 10_000, 400).planned).toBe('"contact" OR {name ident} : "create"');
    expect(planQuery(["create", "contact"], s, 1_000, 400).planned).toBe('"contact"');
    expect(planQuery(["list", "contact"], s, 10_000, 400).planned).toBe('"contact"');
    expect(planQuery(["list", "contact"], s, 20_000, 400).planned).toBe('"contact" OR "list"');
  });
  it("quotes terms so no FTS5 syntax gets through", () => {
    expect(planQuery(['a"b'], () => ({ all: 1, named: 1 })).full).toBe('"a""b"');
  });
});
