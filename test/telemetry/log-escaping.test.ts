/**
 * Issue 19 row 12: a tool name with a newline (or any control character) is the caller's text.
 * It must not forge a `--verbose` log line of `toolsearch mcp --http` (a real process, driven by
 * the SDK client), nor a second line in a span name (`execute_tool <name>`, in-memory exporter).
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { trace } from "@opentelemetry/api";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, describe, expect, it } from "vitest";
import { escapeControl } from "../../src/text/prompt-text.js";
import { startCli, writeJson, type ServerProcess } from "../e2e/processes.js";
import { fixtureEngine } from "../engine/helpers.js";

const FORGED = "GET /admin 200 1ms session=forged";
const NAME = `nope\n${FORGED}\r\u001b[2K\u202e`;

const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  trace.disable();
});

describe("control characters from a caller", () => {
  it("escapeControl writes each control as its escape, tab and newline included", () => {
    expect(escapeControl(NAME)).toBe("nope\\nGET /admin 200 1ms session=forged\\r\\u001b[2K\\u202e");
    expect(escapeControl("plain text, ünïcode")).toBe("plain text, ünïcode");
  });

  it("mcp --http --verbose: a tool name with a newline stays on its own line, escaped", { timeout: 60_000 }, async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "toolsearch-escape-"));
    mkdirSync(path.join(dir, "plugins"));
    writeFileSync(
      path.join(dir, "plugins", "acme.mjs"),
      'export default { id: "acme", tools: [{ name: "echo_text", description: "Echo the text.", inputSchema: { type: "object", properties: {} }, execute: () => "echo" }] };\n',
    );
    const configFile = writeJson(path.join(dir, "toolsearch.config.json5"), { tools: { toolSearch: { mode: "direct" } }, plugins: ["./plugins"] });
    const server: ServerProcess = await startCli(["mcp", "--config", configFile, "--http", "0", "--verbose"]);
    cleanups.push(() => server.stop());
    const client = new Client({ name: "escape-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
    cleanups.push(() => client.close());
    const result = await client.callTool({ name: NAME, arguments: {} });
    expect(result.isError).toBe(true);
    await client.callTool({ name: "echo_text", arguments: {} });
    // Wait for the later call's line, so the first one is surely written.
    const deadline = Date.now() + 20_000;
    while (!/mcp tools\/call echo_text ok/.test(server.stderr()) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    const lines = server.stderr().split("\n");
    expect(lines.some((line) => line.includes("mcp tools/call echo_text ok"))).toBe(true);
    expect(lines.filter((line) => line.startsWith("GET /admin"))).toEqual([]);
    expect(lines.filter((line) => line.includes("tools/call nope"))).toEqual([
      expect.stringContaining("mcp tools/call nope\\nGET /admin 200 1ms session=forged\\r\\u001b[2K\\u202e error"),
    ]);
    expect(server.stderr()).not.toMatch(/[\r\u001b\u202e]/);
  });

  it("the span of a call to that name is one line: execute_tool with the name escaped", async () => {
    const exporter = new InMemorySpanExporter();
    trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
    const engine = await fixtureEngine();
    cleanups.push(() => engine.close());
    const run = await engine.prepareRun({ sessionId: "escape" });
    const outcome = await run.call(NAME, {});
    await run.end();
    expect(outcome).toMatchObject({ ok: false, error: { code: "TOOL_NOT_FOUND" } });
    const names = exporter
      .getFinishedSpans()
      .map((span) => span.name)
      .filter((name) => name.startsWith("execute_tool"));
    expect(names).toEqual(["execute_tool nope\\nGET /admin 200 1ms session=forged\\r\\u001b[2K\\u202e"]);
  });
});
