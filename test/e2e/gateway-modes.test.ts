/**
 * End-to-end: the scripted provider and one gateway process per provider API (OpenAI Chat
 * Completions, OpenAI Responses, Anthropic Messages) over a fake plugin of 600 tools; the same
 * request in each of the four modes (chosen per request), payloads and session logs compared.
 * The same six assertions hold for every API. The Anthropic gateway also exports its spans over
 * OTLP (OTEL_EXPORTER_OTLP_ENDPOINT) to a collector the test runs.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RecordedRequest } from "../../src/mock-provider/mock-provider.js";
import type { SessionEvent } from "../../src/telemetry/types.js";
import { FAKE_PLUGIN_TOOLS, REQUEST, TARGET, writeFakePlugin } from "./fake-plugin.js";
import { postJson, startCli, writeJson, type ServerProcess } from "./processes.js";

const APIS = ["chat", "responses", "anthropic"] as const;
const MODES = ["direct", "code", "tools", "directory"] as const;
type Api = (typeof APIS)[number];
type Mode = (typeof MODES)[number];

interface ModeResult {
  status: number;
  body: Record<string, unknown>;
  requests: RecordedRequest[];
  log: SessionEvent[];
}

const dir = mkdtempSync(path.join(tmpdir(), "toolsearch-e2e-"));
const processes: ServerProcess[] = [];
const results = new Map<`${Api}/${Mode}`, ModeResult>();
const TARGET_ID = `plugin:acme:${TARGET}`;
/** Span names the OTLP collector received, with their attributes. */
const exported: Array<{ name: string; attributes: Record<string, unknown> }> = [];
let collector: Server;

/** A minimal OTLP/HTTP JSON collector: POST /v1/traces. */
async function startCollector(): Promise<string> {
  collector = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as {
        resourceSpans?: Array<{ scopeSpans?: Array<{ spans?: Array<{ name: string; attributes?: Array<{ key: string; value: Record<string, unknown> }> }> }> }>;
      };
      for (const rs of body.resourceSpans ?? [])
        for (const ss of rs.scopeSpans ?? [])
          for (const span of ss.spans ?? [])
            exported.push({ name: span.name, attributes: Object.fromEntries((span.attributes ?? []).map((a) => [a.key, Object.values(a.value)[0]])) });
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => collector.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  const otlp = await startCollector();
  const plugins = writeFakePlugin(path.join(dir, "plugins"));
  const provider = await startCli(["mock-provider", "--port", "0"]);
  processes.push(provider);
  const providerRoot = provider.url.replace(/\/v1$/, "");
  const gateways = await Promise.all(
    APIS.map(async (api) => {
      const config = writeJson(path.join(dir, api, "config.json5"), {
        tools: { toolSearch: { mode: "tools" } },
        // The Anthropic client adds /v1/messages to its base URL; the OpenAI client adds /chat/completions or /responses.
        provider: { api, baseURL: api === "anthropic" ? providerRoot : provider.url, model: "scripted", timeoutMs: 20_000 },
        plugins: [plugins],
        sessionLog: "session.jsonl",
      });
      const env = api === "anthropic" ? { OTEL_EXPORTER_OTLP_ENDPOINT: otlp, OTEL_BSP_SCHEDULE_DELAY: "50" } : {};
      const gateway = await startCli(["serve", "--config", config, "--port", "0"], env);
      processes.push(gateway);
      return { api, gateway };
    }),
  );
  // One run at a time, so the provider's recorded requests belong to that run.
  for (const { api, gateway } of gateways) {
    for (const mode of MODES) {
      const sessionId = `e2e-${api}-${mode}`;
      await fetch(`${providerRoot}/debug/requests`, { method: "DELETE" });
      const { status, json } = await postJson(`${gateway.url}/v1/runs`, { sessionId, input: REQUEST, mode });
      const recorded = (await (await fetch(`${providerRoot}/debug/requests`)).json()) as { requests: RecordedRequest[] };
      const log = readFileSync(path.join(dir, api, "session.jsonl"), "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as SessionEvent)
        .filter((e) => e.sessionId === sessionId);
      results.set(`${api}/${mode}`, { status, body: json, requests: recorded.requests, log });
    }
  }
}, 180_000);

afterAll(async () => {
  await Promise.all(processes.map((p) => p.stop()));
  await new Promise((resolve) => collector.close(resolve));
});

/** The declared tool names of a recorded request, in whichever API's format it came. */
function declaredNames(r: RecordedRequest): string[] {
  if (r.api === "chat") return (r.body.tools ?? []).map((t) => t.function.name);
  return (r.body.tools ?? []).map((t) => t.name);
}

describe.each(APIS)("gateway end to end, provider.api %s", (api) => {
  const result = (mode: Mode) => results.get(`${api}/${mode}`)!;

  it("speaks its API to the provider", () => {
    for (const mode of MODES) {
      expect(result(mode).requests.length, mode).toBeGreaterThan(0);
      expect(new Set(result(mode).requests.map((r) => r.api)), mode).toEqual(new Set([api]));
    }
  });

  it("(1) direct mode calls the fake plugin tool", () => {
    const direct = result("direct");
    expect(direct.status, JSON.stringify(direct.body).slice(0, 500)).toBe(200);
    expect(direct.body.toolCalls).toEqual([expect.objectContaining({ name: TARGET })]);
    expect(direct.body.answer).toContain(`"tool":"${TARGET}"`);
  });

  it("(2) every tool-search mode calls the same tool and returns its result", () => {
    const expected = result("direct").body.answer;
    for (const mode of ["code", "tools", "directory"] as const) {
      const r = result(mode);
      expect(r.status, mode).toBe(200);
      expect(r.body.mode, mode).toBe(mode);
      const telemetry = r.body.telemetry as { calls: Array<{ id: string; source: string; ok: boolean }> };
      expect(telemetry.calls.at(-1), mode).toMatchObject({ id: TARGET_ID, source: "plugin", ok: true });
      expect(String(r.body.answer), mode).toContain(`"tool":"${TARGET}"`);
    }
    expect(String(result("tools").body.answer)).toContain(String(expected).replace("Result: ", ""));
  });

  it("(3) direct mode exposed every fake plugin schema to the provider", () => {
    const first = result("direct").requests[0]!;
    expect(first.body.tools).toHaveLength(FAKE_PLUGIN_TOOLS);
    expect(declaredNames(first)).toContain(TARGET);
  });

  it("(4) tool-search modes exposed only their compact surface in the first request", () => {
    expect(declaredNames(result("code").requests[0]!)).toEqual(["tool_search_code"]);
    expect(declaredNames(result("tools").requests[0]!)).toEqual(["tool_search", "tool_describe", "tool_call"]);
    // Directory mode adds its bounded set of likely schemas (likelySchemas = 4) by design.
    const directory = declaredNames(result("directory").requests[0]!);
    expect(directory.slice(0, 3)).toEqual(["tool_search", "tool_describe", "tool_call"]);
    expect(directory.length - 3).toBeLessThanOrEqual(4);
  });

  it("(5) the tool-search first request is smaller by a stated factor", () => {
    const direct = result("direct").requests[0]!.bytes;
    const factors = Object.fromEntries((["code", "tools", "directory"] as const).map((m) => [m, direct / result(m).requests[0]!.bytes]));
    console.log(`${api}: first-request bytes, direct ÷ mode: ${JSON.stringify(factors)} (direct ${direct} bytes)`);
    expect(factors.code).toBeGreaterThan(100);
    expect(factors.tools).toBeGreaterThan(100);
    expect(factors.directory).toBeGreaterThan(10);
  });

  it("(6) session logs show the control calls and the bridged call", () => {
    const types = (mode: Mode) => result(mode).log.map((e) => e.type);
    expect(types("direct")).toEqual(["run_start", "call", "run_end"]);
    expect(types("tools")).toEqual(["run_start", "search", "describe", "call", "run_end"]);
    expect(types("code")).toEqual(["run_start", "search", "describe", "call", "code_run", "run_end"]);
    const calls = (mode: Mode) => result(mode).log.filter((e): e is Extract<SessionEvent, { type: "call" }> => e.type === "call");
    expect(calls("code")).toEqual([expect.objectContaining({ id: TARGET_ID, source: "plugin", via: "bridge", ok: true })]);
    expect(calls("tools")).toEqual([expect.objectContaining({ id: TARGET_ID, source: "plugin", via: "tool_call", ok: true })]);
    const start = result("direct").log[0] as Extract<SessionEvent, { type: "run_start" }>;
    expect(start.upfront.schemas).toBe(FAKE_PLUGIN_TOOLS);
    expect((result("code").log[0] as Extract<SessionEvent, { type: "run_start" }>).upfront.schemas).toBe(0);
  });
});

describe("serve with OTEL_EXPORTER_OTLP_ENDPOINT", () => {
  it("exports the runs' spans over OTLP", async () => {
    const deadline = Date.now() + 15_000;
    const runs = () => exported.filter((s) => s.name === "toolsearch.run");
    while (runs().length < MODES.length && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(
      runs()
        .map((s) => s.attributes["toolsearch.mode"])
        .sort(),
    ).toEqual([...MODES].sort());
    const names = new Set(exported.map((s) => s.name));
    for (const name of ["toolsearch.code_run", "toolsearch.search", `execute_tool ${TARGET}`]) expect(names).toContain(name);
    expect(exported.find((s) => s.name === `execute_tool ${TARGET}`)!.attributes).toMatchObject({
      "gen_ai.operation.name": "execute_tool",
      "toolsearch.tool.id": TARGET_ID,
    });
  });
});
