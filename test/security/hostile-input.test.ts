/**
 * Hostile input against the shared parent, one test per kind (the hardening table): each is
 * answered with a clear error or a correct result, by the bounded path (a cap that refuses the
 * input with its typed error, the linear-time regex engine, a limit applied before validation).
 * How long each holds the event loop every session shares is a timing goal, so it lives in the
 * stall benchmark (bench/stall/hostile.ts, figures `stall/<kind>/loop-p99÷idle`), not here.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCodePool, createToolSearch, jsonlSessionLog, pluginTools, type CodePool, type ToolDefinition } from "../../src/index.js";
import { syntheticTools } from "../../src/demo/synthetic-catalog.js";
import { MAX_SUGGESTIBLE_CHARS } from "../../src/search/ranking/id-suggester.js";
import { MAX_BATCH_QUERIES, MAX_QUERY_CHARS } from "../../src/validation/search-args.js";

const catalog = syntheticTools(1_000).map((t) => t.definition);
let pool: CodePool;
let logDir: string;
beforeAll(async () => {
  pool = await createCodePool({ prefork: 1 });
  logDir = mkdtempSync(path.join(tmpdir(), "toolsearch-hostile-"));
});
afterAll(async () => {
  await pool.close();
  rmSync(logDir, { recursive: true, force: true });
});

function clientTool(name: string, inputSchema: Record<string, unknown>): ToolDefinition {
  return { name, description: `client tool ${name}`, inputSchema, execute: (args) => ({ got: Object.keys(args).length }) };
}

async function engineWith(sessionLogFile?: string) {
  return createToolSearch({
    toolSearch: { mode: "tools" },
    sources: [pluginTools("acme", catalog)],
    codePool: pool,
    ...(sessionLogFile ? { sessionLog: jsonlSessionLog(sessionLogFile) } : {}),
  });
}

describe("hostile input on the shared parent", () => {
  it("an unknown id of 400,000 characters is TOOL_NOT_FOUND with no suggestions (over the suggester's cap), and is logged clipped", async () => {
    const logFile = path.join(logDir, "long-id.jsonl");
    const engine = await engineWith(logFile);
    try {
      const run = await engine.prepareRun({ sessionId: "s" });
      const longId = `plugin:acme:${"geo_get_weather_".repeat(25_000)}`;
      const described = (await run.describe(longId).catch((error: unknown) => error)) as Error & { code: string };
      const called = await run.call(longId, {});
      const viaTool = JSON.parse(await run.handleToolCall({ name: "tool_describe", arguments: JSON.stringify({ id: longId }) })) as {
        error: { code: string; message: string };
      };
      const longName = JSON.parse(await run.handleToolCall({ name: "x".repeat(400_000), arguments: "{}" })) as { error: { code: string; message: string } };
      // Over MAX_SUGGESTIBLE_CHARS the suggester is not run at all (what bounds the work): no "Did you mean", the id clipped.
      expect(longId.length).toBeGreaterThan(MAX_SUGGESTIBLE_CHARS);
      expect(described.code).toBe("TOOL_NOT_FOUND");
      expect(described.message).toMatch(/\[\+\d+ chars\]"\. Use search to find tool ids\.$/);
      expect(described.message).not.toContain("Did you mean");
      expect(described.message.length).toBeLessThan(400);
      expect(called).toMatchObject({ ok: false, error: { code: "TOOL_NOT_FOUND" } });
      expect(called.id.length).toBeLessThan(300);
      expect(called.ok === false && called.error.message).not.toContain("Did you mean");
      expect(viaTool.error.code).toBe("TOOL_NOT_FOUND");
      expect(viaTool.error.message).not.toContain("Did you mean");
      expect(longName.error.code).toBe("TOOL_NOT_FOUND");
      expect(longName.error.message).toMatch(/\[\+\d+ chars\]/);
      expect(longName.error.message.length).toBeLessThan(400);
      await run.end();
    } finally {
      await engine.close();
    }
    const log = readFileSync(logFile, "utf8");
    expect(log.length).toBeLessThan(20_000); // one 20 s body used to write 184 MB
    expect(log).toContain("chars]");
  });

  it("near-miss ids still get suggestions", async () => {
    const engine = await engineWith();
    try {
      const run = await engine.prepareRun({ sessionId: "s" });
      const error = (await run.describe("plugin:acme:geo_get_wether_forecast").catch((e: unknown) => e)) as Error;
      expect(error.message).toContain("Did you mean: plugin:acme:geo_get_weather_forecast");
    } finally {
      await engine.close();
    }
  });

  it("a backtracking pattern in a client schema is checked in linear time", async () => {
    const engine = await engineWith();
    try {
      const tool = clientTool("evil_pattern", { type: "object", properties: { s: { type: "string", pattern: "^(a+)+$" } }, required: ["s"] });
      const run = await engine.prepareRun({ sessionId: "s", clientTools: [tool] });
      // 34 "a"s and a "!" is 2^34 steps for a backtracking engine: answering at all means the linear one ran
      // (the next test shows it is that engine: a lookahead, which it cannot run, is refused).
      const value = await Promise.all([run.call("client:evil_pattern", { s: `${"a".repeat(34)}!` }), run.call("client:evil_pattern", { s: "aaaa" })]);
      expect(value[0]).toMatchObject({ ok: false, error: { code: "INVALID_ARGS" } });
      expect(value[0].ok === false && value[0].error.message).toContain('must match pattern "^(a+)+$"');
      expect(value[1]).toMatchObject({ ok: true, result: { got: 1 } });
    } finally {
      await engine.close();
    }
  });

  it("a pattern the linear engine cannot run is refused at prepareRun, naming the tool", async () => {
    const engine = await engineWith();
    try {
      const tool = clientTool("lookahead", { type: "object", properties: { s: { type: "string", pattern: "^(?=.*\\d).+$" } } });
      await expect(engine.prepareRun({ sessionId: "s", clientTools: [tool] })).rejects.toMatchObject({
        code: "CONFIG_INVALID",
        message: expect.stringMatching(/^Tool "client:lookahead" has an inputSchema with a pattern the linear-time regex engine cannot run/) as unknown,
      });
    } finally {
      await engine.close();
    }
  });

  it("a client schema of 6,000 pattern properties is refused before compiling, naming the tool and the limit", async () => {
    const engine = await engineWith();
    try {
      const properties: Record<string, unknown> = {};
      for (let i = 0; i < 6_000; i++) properties[`field_${i}`] = { type: "string", pattern: `^[a-z]{1,${(i % 50) + 1}}$` };
      const tool = clientTool("huge", { type: "object", properties });
      // Refused by the pattern cap, before ajv compiles anything: the message names the limit that applied.
      const value = await engine.prepareRun({ sessionId: "s", clientTools: [tool] }).catch((error: unknown) => error);
      expect(value).toMatchObject({
        code: "CONFIG_INVALID",
        message: 'Tool "client:huge" has an inputSchema over the limits for untrusted schemas: it has more than 64 patterns',
      });
    } finally {
      await engine.close();
    }
  });

  it("uniqueItems over 20,000 objects is checked in linear time; oversized arguments are refused before validation", async () => {
    const engine = await engineWith();
    try {
      const tool = clientTool("unique", { type: "object", properties: { items: { type: "array", uniqueItems: true, items: { type: "object" } } } });
      const run = await engine.prepareRun({ sessionId: "s", clientTools: [tool] });
      const items = Array.from({ length: 20_000 }, (_, i) => ({ n: i, k: `r${i}` }));
      const value = await Promise.all([run.call("client:unique", { items }), run.call("client:unique", { items: [...items, { k: "r3", n: 3 }] })]);
      expect(value[0]).toMatchObject({ ok: true });
      expect(value[1]).toMatchObject({ ok: false, error: { code: "INVALID_ARGS" } });
      // The pair found is item 3 and the appended copy with its keys in another order: equality in JSON Schema's sense.
      expect(value[1].ok === false && value[1].error.message).toMatch(/items ## (3 and 20000|20000 and 3) are identical/);
      const huge = await run.call("client:unique", { items: Array.from({ length: 40_000 }, (_, i) => ({ text: `${i}`.padEnd(20, "x") })) });
      expect(huge).toMatchObject({ ok: false, error: { code: "INVALID_ARGS", message: expect.stringContaining("over the 524288-byte limit") as unknown } });
    } finally {
      await engine.close();
    }
  });

  // Slow on purpose: hundreds of runs with schemas of their own, with full GCs between, to show the heap levels off.
  it("runs with distinct client schemas do not grow the heap without bound", { timeout: 120_000 }, async () => {
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    const engine = await engineWith();
    const runOnce = async (i: number) => {
      const properties = { [`field_${i}`]: { type: "string", pattern: `^v${i}-[a-z]+$` }, [`count_${i}`]: { type: "integer", minimum: i } };
      const run = await engine.prepareRun({
        sessionId: `s${i}`,
        clientTools: [clientTool(`tool_${i}`, { type: "object", properties, required: [`field_${i}`] })],
      });
      expect(await run.call(`client:tool_${i}`, { [`field_${i}`]: `v${i}-ok` })).toMatchObject({ ok: true });
      await run.end();
    };
    try {
      for (let i = 0; i < 300; i++) await runOnce(i); // warm: caches fill to their bounds
      gc();
      const before = process.memoryUsage().heapUsed;
      for (let i = 300; i < 2_300; i++) await runOnce(i);
      gc();
      const grownMb = (process.memoryUsage().heapUsed - before) / 2 ** 20;
      // One shared ajv (and a leak through AbortSignal.any) grew the heap 108 MB over 2,000 such runs.
      expect(grownMb).toBeLessThan(15);
    } finally {
      await engine.close();
    }
  });

  it("a code body's long-id describes and batch searches of long queries are answered, within the batch and query caps", async () => {
    const engine = await engineWith();
    try {
      const run = await engine.prepareRun({ sessionId: "code", mode: "code" });
      const code = `
        const longId = "plugin:acme:" + "x".repeat(100000);
        const codes = [];
        for (let i = 0; i < 20; i++) {
          try { await openclaw.tools.describe(longId); } catch (e) { codes.push(e.code); }
        }
        const words = "send an email with the weather forecast and create a calendar event then upload the report ".repeat(10);
        const batch = await openclaw.tools.search(Array.from({ length: ${MAX_BATCH_QUERIES} }, (_, i) => words.slice(i)), { limit: 2 });
        let overBatch;
        try { await openclaw.tools.search(Array.from({ length: ${MAX_BATCH_QUERIES + 1} }, () => "weather")); } catch (e) { overBatch = e.code; }
        const beforeCut = await openclaw.tools.search(".".repeat(${MAX_QUERY_CHARS - 10}) + " weather forecast");
        const pastCut = await openclaw.tools.search(".".repeat(${MAX_QUERY_CHARS}) + " weather forecast");
        return { codes: [...new Set(codes)], answered: batch.length, overBatch, beforeCut: beforeCut.length, pastCut: pastCut.length };`;
      const value = JSON.parse(await run.handleToolCall({ name: "tool_search_code", arguments: JSON.stringify({ code }) })) as {
        value?: { beforeCut?: number };
      };
      // What bounds a body's searches: at most MAX_BATCH_QUERIES a batch (one more is refused), each query cut at MAX_QUERY_CHARS
      // (words past the cut are not searched for).
      expect(value).toMatchObject({ ok: true, value: { codes: ["TOOL_NOT_FOUND"], answered: MAX_BATCH_QUERIES, overBatch: "INVALID_ARGS", pastCut: 0 } });
      expect(value.value?.beforeCut).toBeGreaterThan(0);
    } finally {
      await engine.close();
    }
  });
});
