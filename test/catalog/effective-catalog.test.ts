/** A run's effective catalog: the admitted catalog tools and the run's client tools, as one view. */
import { describe, expect, it } from "vitest";
import { admittedCatalog, EffectiveCatalog } from "../../src/catalog/effective-catalog.js";
import type { CatalogEntry, ToolSource } from "../../src/catalog/types.js";

function entry(id: string, source: ToolSource): CatalogEntry {
  const name = id.split(":").pop()!;
  return {
    id,
    name,
    source,
    toolset: source,
    definition: { name, description: "", inputSchema: {}, execute: () => null },
    ownerOnly: false,
    validator: () => {
      throw new Error("unused");
    },
  };
}

describe("EffectiveCatalog", () => {
  const admitted = admittedCatalog([entry("core:a", "core"), entry("plugin:p:b", "plugin"), entry("mcp:m:c", "mcp"), entry("mcp:m:d", "mcp")]);
  const run = new EffectiveCatalog(admitted, [entry("client:e", "client")]);

  it("counts and looks up both parts; catalog ids and client ids stay apart", () => {
    expect(admitted.bySource).toEqual({ core: 1, plugin: 1, mcp: 2, client: 0 });
    expect(run.bySource()).toEqual({ core: 1, plugin: 1, mcp: 2, client: 1 });
    expect(run.size).toBe(5);
    expect([...run.catalogIds]).toEqual(["core:a", "plugin:p:b", "mcp:m:c", "mcp:m:d"]);
    expect([...run.clientIds]).toEqual(["client:e"]);
    expect(run.get("mcp:m:c")?.id).toBe("mcp:m:c");
    expect(run.get("client:e")?.source).toBe("client");
    expect(run.get("core:nope")).toBeUndefined();
  });

  it("lists catalog tools first, in registration order, then client tools", () => {
    expect([...run.entries()].map((e) => e.id)).toEqual(["core:a", "plugin:p:b", "mcp:m:c", "mcp:m:d", "client:e"]);
    expect(run.catalogEntries()).toBe(admitted.entries);
    expect([...run.clientEntries()].map((e) => e.id)).toEqual(["client:e"]);
  });

  it("is a view: runs over one admitted catalog share it", () => {
    const other = new EffectiveCatalog(admitted, []);
    expect(other.catalogIds).toBe(run.catalogIds);
    expect(other.bySource().client).toBe(0);
  });
});
