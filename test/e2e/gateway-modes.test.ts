/**
 * End-to-end: the scripted provider and one gateway process per mode (direct, code, tools,
 * directory) over a fake plugin of 600 tools; the same request in each; payloads and session
 * logs compared.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RecordedRequest } from "../../src/provider/mock-provider.js";
import type { SessionEvent } from "../../src/telemetry/types.js";
import { FAKE_PLUGIN_TOOLS, REQUEST, TARGET, writeFakePlugin } from "./fake-plugin.js";
import { postJson, startCli, writeJson, type ServerProcess } from "./processes.js";

const MODES = [
  { mode: "direct", toolSearch: false },
  { mode: "code", toolSearch: { mode: "code" } },
  { mode: "tools", toolSearch: { mode: "tools" } },
  { mode: "directory", toolSearch: { mode: "directory" } },
] as const;
type Mode = (typeof MODES)[number]["mode"];

interface ModeResult {
  status: number;
  body: Record<string, unknown>;
  requests: RecordedRequest[];
  log: SessionEvent[];
}

const dir = mkdtempSync(path.join(tmpdir(), "toolsearch-e2e-"));
const processes: ServerProcess[] = [];
const results = new Map<Mode, ModeResult>();
const TARGET_ID = `plugin:acme:${TARGET}`;

beforeAll(async () => {
  const plugins = writeFakePlugin(path.join(dir, "plugins"));
  const provider = await startCli(["mock-provider", "--port", "0"]);
  processes.push(provider);
  const gateways = await Promise.all(
    MODES.map(async ({ mode, toolSearch }) => {
      const config = writeJson(path.join(dir, mode, "config.json5"), {
        tools: { toolSearch },
        provider: { baseURL: provider.url, model: "scripted", timeoutMs: 20_000 },
        plugins: [plugins],
        sessionLog: "session.jsonl",
      });
      const gateway = await startCli(["serve", "--config", config, "--port", "0"]);
      processes.push(gateway);
      return { mode, gateway };
    }),
  );
  // One mode at a time, so the provider's recorded requests belong to that mode.
  for (const { mode, gateway } of gateways) {
    await fetch(`${provider.url.replace(/\/v1$/, "")}/debug/requests`, { method: "DELETE" });
    const { status, json } = await postJson(`${gateway.url}/v1/runs`, { sessionId: `e2e-${mode}`, input: REQUEST });
    const recorded = (await (await fetch(`${provider.url.replace(/\/v1$/, "")}/debug/requests`)).json()) as { requests: RecordedRequest[] };
    const log = readFileSync(path.join(dir, mode, "session.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l) as SessionEvent);
    results.set(mode, { status, body: json, requests: recorded.requests, log });
  }
}, 120_000);

afterAll(async () => {
  await Promise.all(processes.map((p) => p.stop()));
});

const declaredNames = (r: RecordedRequest) => (r.body.tools ?? []).map((t) => t.function.name);

describe("gateway end to end, one process per mode", () => {
  it("(1) direct mode calls the fake plugin tool", () => {
    const direct = results.get("direct")!;
    expect(direct.status).toBe(200);
    expect(direct.body.toolCalls).toEqual([expect.objectContaining({ name: TARGET })]);
    expect(direct.body.answer).toContain(`"tool":"${TARGET}"`);
  });

  it("(2) every tool-search mode calls the same tool and returns its result", () => {
    const expected = results.get("direct")!.body.answer;
    for (const mode of ["code", "tools", "directory"] as const) {
      const r = results.get(mode)!;
      expect(r.status, mode).toBe(200);
      expect(r.body.mode, mode).toBe(mode);
      const telemetry = r.body.telemetry as { calls: Array<{ id: string; source: string; ok: boolean }> };
      expect(telemetry.calls.at(-1), mode).toMatchObject({ id: TARGET_ID, source: "plugin", ok: true });
      expect(String(r.body.answer), mode).toContain(`"tool":"${TARGET}"`);
    }
    expect(String(results.get("tools")!.body.answer)).toContain(String(expected).replace("Result: ", ""));
  });

  it("(3) direct mode exposed every fake plugin schema to the provider", () => {
    const first = results.get("direct")!.requests[0]!;
    expect(first.body.tools).toHaveLength(FAKE_PLUGIN_TOOLS);
    expect(declaredNames(first)).toContain(TARGET);
  });

  it("(4) tool-search modes exposed only their compact surface in the first request", () => {
    expect(declaredNames(results.get("code")!.requests[0]!)).toEqual(["tool_search_code"]);
    expect(declaredNames(results.get("tools")!.requests[0]!)).toEqual(["tool_search", "tool_describe", "tool_call"]);
    // Directory mode adds its bounded set of likely schemas (likelySchemas = 4) by design.
    const directory = declaredNames(results.get("directory")!.requests[0]!);
    expect(directory.slice(0, 3)).toEqual(["tool_search", "tool_describe", "tool_call"]);
    expect(directory.length - 3).toBeLessThanOrEqual(4);
  });

  it("(5) the tool-search first request is smaller by a stated factor", () => {
    const direct = results.get("direct")!.requests[0]!.bytes;
    const factors = Object.fromEntries((["code", "tools", "directory"] as const).map((m) => [m, direct / results.get(m)!.requests[0]!.bytes]));
    console.log(`first-request bytes, direct ÷ mode: ${JSON.stringify(factors)} (direct ${direct} bytes)`);
    expect(factors.code).toBeGreaterThan(100);
    expect(factors.tools).toBeGreaterThan(100);
    expect(factors.directory).toBeGreaterThan(10);
  });

  it("(6) session logs show the control calls and the bridged call", () => {
    const types = (mode: Mode) => results.get(mode)!.log.map((e) => e.type);
    expect(types("direct")).toEqual(["run_start", "call", "run_end"]);
    expect(types("tools")).toEqual(["run_start", "search", "describe", "call", "run_end"]);
    expect(types("code")).toEqual(["run_start", "search", "describe", "call", "code_run", "run_end"]);
    const calls = (mode: Mode) => results.get(mode)!.log.filter((e): e is Extract<SessionEvent, { type: "call" }> => e.type === "call");
    expect(calls("code")).toEqual([expect.objectContaining({ id: TARGET_ID, source: "plugin", via: "bridge", ok: true })]);
    expect(calls("tools")).toEqual([expect.objectContaining({ id: TARGET_ID, source: "plugin", via: "tool_call", ok: true })]);
    const start = results.get("direct")!.log[0] as Extract<SessionEvent, { type: "run_start" }>;
    expect(start.upfront.schemas).toBe(FAKE_PLUGIN_TOOLS);
    expect((results.get("code")!.log[0] as Extract<SessionEvent, { type: "run_start" }>).upfront.schemas).toBe(0);
  });
});
