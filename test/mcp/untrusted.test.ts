/** What a server sends is bounded before it enters the catalog: descriptions, schemas, names, error text. */
import { afterEach, describe, expect, it, vi } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import { createToolAjv } from "../../src/validation/ajv.js";
import { mcpServer, type McpServerSource } from "../../src/mcp/index.js";
import { mapTool } from "../../src/mcp/map-tool.js";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { startHttpServer, textTool, toolContext, type TestHttpServer, type TestTool } from "./helpers.js";

/** The length of every text stripControl is asked to scan (a pass-through spy). */
const stripped = vi.hoisted(() => [] as number[]);
vi.mock("../../src/text/prompt-text.js", async (importOriginal) => {
  const original = await importOriginal<typeof import("../../src/text/prompt-text.js")>();
  return { ...original, stripControl: (text: string) => (stripped.push(text.length), original.stripControl(text)) };
});

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.allSettled(cleanup.splice(0).map((fn) => fn()));
});

async function serve(tools: TestTool[]): Promise<{ http: TestHttpServer; source: McpServerSource }> {
  const http = await startHttpServer(tools);
  const source = mcpServer({ name: "evil", url: http.url });
  cleanup.push(
    () => source.close(),
    () => http.close(),
  );
  await source.start();
  return { http, source };
}

function hugeSchema(): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (let i = 0; i < 2_000; i++) properties[`field_${i}`] = { type: "string", description: `field number ${i} `.repeat(4) };
  return { type: "object", properties };
}

const limits = { maxDescriptionChars: 2_000, maxSchemaBytes: 32_768 };
const call = async () => null;

describe("untrusted MCP tool data", () => {
  it("a 100 KB description and a huge schema are bounded; the catalog accepts the result", async () => {
    const bigText = `Reads a file. ${"lorem ipsum ".repeat(9_000)}`;
    expect(bigText.length).toBeGreaterThan(100_000);
    const { source } = await serve([
      { ...textTool("big"), description: bigText, inputSchema: hugeSchema() as TestTool["inputSchema"] },
      { ...textTool("ok"), description: "Fine\u0000 tool\u001b[31m with\u202e controls\u200b.\nSecond line." },
    ]);
    const [big, ok] = source.tools();
    expect(JSON.stringify(hugeSchema()).length).toBeGreaterThan(32_768);
    expect(big!.description.length).toBeLessThanOrEqual(2_000);
    expect(big!.description).toMatch(/^Reads a file\. lorem ipsum/);
    expect(big!.description).toMatch(
      /\[toolsearch: this tool's input schema was left out \(\d+ bytes, over the 32768-byte limit\); pass the arguments its description asks for\.\]$/,
    );
    expect(big!.inputSchema).toEqual({ type: "object" });
    expect(ok!.description).toBe("Fine tool[31m with controls.\nSecond line.");
    expect(ok!.inputSchema).toEqual({ type: "object", properties: { text: { type: "string" } } });

    // The bounded definitions pass the catalog's own checks.
    const catalog = new Catalog([source], () => createToolAjv());
    await catalog.start();
    expect(catalog.all().map((e) => e.id)).toEqual(["mcp:evil:big", "mcp:evil:ok"]);
    // The tool is still callable with the permissive schema.
    expect(await big!.execute({ text: "a" }, toolContext("mcp:evil:big"))).toBe("big:a");
  });

  it("a schema that is not valid JSON Schema is replaced instead of failing the engine", async () => {
    const { source } = await serve([{ ...textTool("bad"), inputSchema: { type: "object", properties: { a: { type: "strng" } } } as TestTool["inputSchema"] }]);
    const [bad] = source.tools();
    expect(bad!.inputSchema).toEqual({ type: "object" });
    expect(bad!.description).toContain("(not a valid JSON Schema)");
    const catalog = new Catalog([source], () => createToolAjv());
    await catalog.start();
    expect(catalog.size).toBe(1);
  });

  it("an output schema that is too large or invalid is dropped, and does not fail the listing", async () => {
    const { source } = await serve([
      { ...textTool("large_out"), outputSchema: hugeSchema() as TestTool["outputSchema"] },
      {
        ...textTool("bad_out", "ok", () => ({ content: [], structuredContent: { a: 1 } })),
        outputSchema: { type: "object", properties: { a: { $ref: "#/nowhere" } } } as TestTool["outputSchema"],
      },
      {
        ...textTool("good_out", "ok", () => ({ content: [{ type: "text", text: "{}" }], structuredContent: { n: 1 } })),
        outputSchema: { type: "object", properties: { n: { type: "number" } } },
      },
    ]);
    const byName = Object.fromEntries(source.tools().map((t) => [t.name, t]));
    expect(byName.large_out!.outputSchema).toBeUndefined();
    expect(byName.good_out!.outputSchema).toEqual({ type: "object", properties: { n: { type: "number" } } });
    expect(await byName.good_out!.execute({}, toolContext("mcp:evil:good_out"))).toEqual({ n: 1 });
    // An output schema the client cannot compile (unresolvable $ref) is not enforced, rather than failing the call or the listing.
    expect(await byName.bad_out!.execute({}, toolContext("mcp:evil:bad_out"))).toEqual({ a: 1 });
  });

  it("mapTool: title stands in for a missing description; the original name is what execute calls", async () => {
    const calls: string[] = [];
    const def = mapTool({ name: "a b", title: "The A B tool", inputSchema: { type: "object" } }, "a_b", limits, async (name) => {
      calls.push(name);
      return "done";
    });
    expect(def).toMatchObject({ name: "a_b", description: "The A B tool", inputSchema: { type: "object" } });
    expect(await def.execute({}, toolContext("mcp:x:a_b"))).toBe("done");
    expect(calls).toEqual(["a b"]);
    expect(mapTool({ name: "n", inputSchema: { type: "object" } }, "n", limits, call).description).toBe("");
  });

  it("mapTool: annotations are carried, hints only as booleans and the title cleaned and cut", () => {
    const annotations = { readOnlyHint: false, destructiveHint: true, idempotentHint: "yes", openWorldHint: false, title: "Delete\u0007 it", extra: 1 };
    const def = mapTool({ name: "rm", description: "Removes.", inputSchema: { type: "object" }, annotations } as unknown as Tool, "rm", limits, call);
    expect(def.annotations).toEqual({ readOnlyHint: false, destructiveHint: true, openWorldHint: false, title: "Delete it" });
    // The tool's own title stands in for annotations.title; a tool with neither has no annotations.
    expect(mapTool({ name: "t", title: "T".repeat(500), inputSchema: { type: "object" } }, "t", limits, call).annotations?.title).toHaveLength(200);
    expect(mapTool({ name: "n", inputSchema: { type: "object" } }, "n", limits, call).annotations).toBeUndefined();
  });

  it("mapTool: a description of many megabytes is cut without scanning it all", () => {
    const huge = "x".repeat(20_000_000);
    stripped.length = 0;
    const def = mapTool({ name: "n", description: huge, inputSchema: { type: "object" } }, "n", limits, call);
    expect(def.description.length).toBeLessThanOrEqual(2_000);
    // What is scanned for control characters is a bounded prefix (4 × the limit), never the 20 MB.
    expect(stripped.length).toBeGreaterThan(0);
    expect(Math.max(...stripped)).toBeLessThanOrEqual(4 * 2_000);
  });
});
