import { describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import { coreTools, pluginTools } from "../../src/catalog/sources.js";
import type { ToolDefinition } from "../../src/catalog/types.js";
import { createToolAjv } from "../../src/validation/ajv.js";
import { ConfigInvalidError } from "../../src/errors.js";
import { githubTools, weatherTools } from "../fixtures/tools.js";

const tool = (name: string, inputSchema: Record<string, unknown> = { type: "object" }): ToolDefinition => ({
  name,
  description: `${name} tool`,
  inputSchema,
  execute: () => null,
});

async function started(...sources: Parameters<typeof coreTools>[0][]): Promise<Catalog> {
  const catalog = new Catalog(
    sources.map((defs, i) => (i === 0 ? coreTools(defs) : pluginTools(`p${i}`, defs))),
    () => createToolAjv(),
  );
  await catalog.start();
  return catalog;
}

describe("catalog", () => {
  it("derives ids per source", async () => {
    const catalog = await started(weatherTools(), githubTools());
    expect(catalog.get("core:get_weather_forecast")?.source).toBe("core");
    expect(catalog.get("plugin:p1:create_issue")?.toolset).toBe("p1");
    expect(catalog.size).toBe(6);
    expect(catalog.clientEntries([tool("ask_user")])[0]?.id).toBe("client:ask_user");
  });

  it("rejects an invalid input schema at registration, naming the tool", async () => {
    await expect(started([tool("bad", { type: "object", properties: { a: { type: "strng" } } })])).rejects.toThrow(
      /Tool "core:bad" has an invalid inputSchema/,
    );
    await expect(started([tool("bad2", { type: 5 })])).rejects.toBeInstanceOf(ConfigInvalidError);
  });

  it("rejects duplicate ids, bad names and missing parts", async () => {
    await expect(started([tool("x"), tool("x")])).rejects.toThrow(/Duplicate tool id "core:x"/);
    await expect(started([tool(" padded")])).rejects.toThrow(/tool name must be/);
    await expect(started([tool("bell\u0007")])).rejects.toThrow(/tool name must be/);
    await expect(started([tool("x".repeat(129))])).rejects.toThrow(/tool name must be/);
    await expect(started([tool("has space")])).resolves.toBeDefined();
    await expect(started([{ ...tool("noexec"), execute: undefined } as unknown as ToolDefinition])).rejects.toThrow(
      /tool "noexec": execute must be a function/,
    );
    const catalog = await started([]);
    expect(() => catalog.clientEntries([tool("a"), tool("a")])).toThrow(/Duplicate tool id "client:a"/);
  });

  it("accepts schemas that declare another draft, and compiles validators once", async () => {
    const catalog = await started([
      tool("drafted", { $schema: "https://json-schema.org/draft/2020-12/schema", type: "object", properties: { n: { type: "number" } } }),
    ]);
    const entry = catalog.get("core:drafted")!;
    expect(entry.validator()).toBe(entry.validator());
    expect(entry.validator()({ n: "x" })).toBe(false);
    expect(entry.definition.inputSchema.$schema).toBeDefined();
  });

  it("builds search docs with parameter names and descriptions", async () => {
    const catalog = await started(weatherTools());
    const doc = catalog.docs().find((d) => d.id === "core:get_weather_forecast")!;
    expect(doc.params.map((p) => p.name)).toEqual(["city", "days"]);
    expect(doc.params[0]?.description).toContain("City");
  });

  it("rejects a bad plugin id", () => {
    expect(() => pluginTools("bad id", [])).toThrow(/pluginId/);
  });
});
