/** Catalog ids and the bounded descriptor the search index holds. */
import { describe, expect, it } from "vitest";
import { toSearchDoc } from "../../src/catalog/search-doc.js";
import { toolId } from "../../src/catalog/tool-id.js";
import type { CatalogEntry, ToolDefinition } from "../../src/catalog/types.js";

describe("toolId", () => {
  it("names core and client tools without a toolset, plugin and MCP tools with theirs", () => {
    expect(toolId("core", "core", "read")).toBe("core:read");
    expect(toolId("client", "client", "pick")).toBe("client:pick");
    expect(toolId("plugin", "github", "create_issue")).toBe("plugin:github:create_issue");
    expect(toolId("mcp", "fs", "read_file")).toBe("mcp:fs:read_file");
  });
});

describe("toSearchDoc", () => {
  const entry = (definition: Partial<ToolDefinition>): CatalogEntry => {
    const def: ToolDefinition = { name: "read_file", description: "Reads a file.", inputSchema: {}, execute: () => null, ...definition };
    return {
      id: "mcp:fs:read_file",
      name: def.name,
      source: "mcp",
      toolset: "fs",
      definition: def,
      ownerOnly: false,
      validator: () => {
        throw new Error("unused");
      },
    };
  };

  it("keeps id, name, toolset, the description and each top-level parameter with its description", () => {
    const doc = toSearchDoc(entry({ inputSchema: { properties: { path: { type: "string", description: "Where." }, mode: { type: "string" }, odd: 5 } } }));
    expect(doc).toEqual({
      id: "mcp:fs:read_file",
      name: "read_file",
      source: "mcp",
      toolset: "fs",
      description: "Reads a file.",
      params: [
        { name: "path", description: "Where." },
        { name: "mode", description: "" },
        { name: "odd", description: "" },
      ],
    });
    expect(toSearchDoc(entry({ inputSchema: { properties: null } })).params).toEqual([]);
  });

  it("bounds untrusted text: description, parameter count and parameter descriptions", () => {
    const properties = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`p${i}`, { description: "d".repeat(1000) }]));
    const doc = toSearchDoc(entry({ description: "x".repeat(10_000), inputSchema: { properties } }));
    expect(doc.description).toHaveLength(2000);
    expect(doc.params).toHaveLength(40);
    expect(doc.params.every((p) => p.description.length === 300)).toBe(true);
  });
});
