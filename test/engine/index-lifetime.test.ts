/** The catalog's index lives while a run holds it: a catalog change mid-run closes it only when the run ends. */
import { describe, expect, it } from "vitest";
import { createToolSearch, minisearchBackend, type CatalogSource, type SearchBackendFactory, type ToolDefinition } from "../../src/index.js";

const tool = (name: string): ToolDefinition => ({ name, description: `${name} tool for widgets`, inputSchema: { type: "object" }, execute: () => name });

describe("index lifetime", () => {
  it("an evicted index stays open for the run holding it and closes when that run ends", async () => {
    const closed: string[] = [];
    const counting: SearchBackendFactory = {
      kind: "counting",
      async create() {
        const backend = await minisearchBackend.create();
        const ids: string[] = [];
        return {
          kind: "counting",
          get size() {
            return backend.size;
          },
          add(docs) {
            ids.push(...docs.map((d) => d.id));
            backend.add(docs);
          },
          remove: (removed) => backend.remove(removed),
          search: (query, options) => backend.search(query, options),
          close() {
            closed.push(ids.join(","));
            backend.close?.();
          },
        };
      },
    };
    let tools = [tool("v0")];
    const listeners: Array<() => void> = [];
    const live: CatalogSource = { source: "plugin", toolset: "live", tools: () => tools, onChange: (l) => listeners.push(l) };
    const engine = await createToolSearch({ sources: [live], backend: counting });
    try {
      const held = await engine.prepareRun({ sessionId: "held" });
      for (let v = 1; v <= 5; v++) {
        tools = [tool(`v${v}`)];
        for (const l of listeners) l();
        await (await engine.prepareRun({ sessionId: `s${v}` })).end();
      }
      // Five newer catalogs pushed v0 out of the four-entry cache (and v1 after it, which no run held).
      expect(closed).toEqual(["plugin:live:v1"]);
      expect((await held.search("widgets")).map((h) => h.id)).toEqual(["plugin:live:v0"]);
      await held.end();
      expect(closed).toEqual(["plugin:live:v1", "plugin:live:v0"]);
    } finally {
      await engine.close();
    }
    expect(closed).toHaveLength(6);
  });
});
