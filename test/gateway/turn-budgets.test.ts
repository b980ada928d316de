/**
 * Turn budgets (issue 19, rows 8 and 9) over real HTTP: the gateway in-process against a
 * provider stand-in on 127.0.0.1 that answers every trip with 32 calls of a 1 MiB-result tool,
 * or sends headers and then drips a byte a second, or goes silent. Each turn ends with its
 * error, the amplified conversation is cut with the marker, and no request over the cap is sent.
 */
import { afterEach, describe, expect, it } from "vitest";
import { startHostileProvider, type HostileBehaviour, type HostileProvider } from "../../bench/stall/hostile-provider.js";
import { pluginTools } from "../../src/catalog/sources.js";
import type { ToolDefinition } from "../../src/catalog/types.js";
import { resolveServerConfig } from "../../src/config/server-config.js";
import { startGateway, type Gateway } from "../../src/gateway/gateway-server.js";
import type { ProviderApi } from "../../src/wire/wire-types.js";
import { postJson } from "../e2e/processes.js";

const MIB = 1024 * 1024;
const BIG = "x".repeat(MIB - 64);
const bigResult: ToolDefinition = {
  name: "big_result",
  description: "Returns one mebibyte of data about a file.",
  inputSchema: { type: "object", properties: {} },
  execute: () => ({ data: BIG }),
};

let open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const thing of open.reverse()) await thing.close();
  open = [];
});

async function hostile(behaviour: HostileBehaviour): Promise<HostileProvider> {
  const provider = await startHostileProvider({ behaviour });
  open.push(provider);
  return provider;
}

async function gatewayFor(
  api: ProviderApi,
  provider: HostileProvider,
  sections: { provider?: Record<string, unknown>; gateway?: Record<string, unknown> } = {},
): Promise<Gateway> {
  const config = resolveServerConfig(
    {
      tools: { toolSearch: { mode: "direct" } },
      provider: { api, baseURL: api === "anthropic" ? provider.origin : provider.url, timeoutMs: 60_000, ...sections.provider },
      gateway: { port: 0, ...sections.gateway },
    },
    process.cwd(),
    {},
  );
  const gateway = await startGateway(config, { sources: [pluginTools("files", [bigResult])] });
  open.push(gateway);
  return gateway;
}

type ToolCallOut = { name: string; content: string };

describe("a provider that answers every trip with 32 calls of a 1 MiB-result tool", () => {
  it.each(["chat", "responses", "anthropic"] as const)(
    "%s: the result crossing gateway.maxTurnResultBytes is cut with the marker, later calls are refused unrun; every request stays under the cap",
    async (api) => {
      const provider = await hostile("amplify");
      const budget = 2.5 * MIB;
      const gateway = await gatewayFor(api, provider, { gateway: { maxTurnResultBytes: budget, maxTurns: 4 }, provider: { maxRequestBytes: 3 * MIB } });
      const res = await postJson(`${gateway.url}/v1/runs`, { sessionId: `amplify-${api}`, input: "read the file" });
      expect(res.status).toBe(200);
      expect(res.json).toMatchObject({ status: "max_turns", roundTrips: 4 });
      const calls = res.json.toolCalls as ToolCallOut[];
      expect(calls).toHaveLength(4 * 32);
      // Two whole results, then the third cut to the half MiB left; every later call is refused unrun.
      expect(calls[0]!.content.length).toBeGreaterThan(MIB - 100);
      const cut = calls.findIndex((c) => c.content.includes("[toolsearch: result cut"));
      expect(cut).toBeGreaterThan(0);
      expect(calls[cut]!.content.slice(-200)).toMatch(
        /\[toolsearch: result cut to \d+ of \d+ bytes \(maxTurnResultBytes: this turn's budget for tool results is spent\); answer with what you have, or ask for less\]$/,
      );
      for (const c of calls.slice(cut + 1))
        expect(JSON.parse(c.content)).toMatchObject({ ok: false, error: { code: "TURN_BUDGET", message: expect.stringContaining("the call was not run") } });
      expect(calls.slice(0, cut + 1).reduce((sum, c) => sum + Buffer.byteLength(c.content), 0)).toBeLessThanOrEqual(budget);
      // Without the budget the 4th request would carry 3 × 32 MiB; it carries the budget and the markers.
      const sizes = provider.requestBytes();
      expect(sizes).toHaveLength(4);
      for (const size of sizes) expect(size).toBeLessThanOrEqual(3 * MIB);
      expect(sizes.at(-1)!).toBeGreaterThan(budget / 2);
      expect(provider.lastBody()).toContain("maxTurnResultBytes: this turn's budget for tool results is spent");
      expect(provider.lastBody()).toContain("TURN_BUDGET");
    },
    120_000,
  );

  it("a conversation that would pass provider.maxRequestBytes is not sent: the turn fails with TURN_BUDGET", async () => {
    const provider = await hostile("amplify");
    const gateway = await gatewayFor("chat", provider, { gateway: { maxTurnResultBytes: 4 * MIB }, provider: { maxRequestBytes: 2 * MIB } });
    const res = await postJson(`${gateway.url}/v1/runs`, { sessionId: "amplify-cap", input: "read the file" });
    expect(res.status).toBe(502);
    expect(res.json.error).toMatchObject({
      code: "TURN_BUDGET",
      message: expect.stringMatching(
        /would be \d+ bytes, over the 2097152-byte limit \(maxRequestBytes; provider.maxRequestBytes in the gateway\); it was not sent/,
      ),
    });
    // Only the first, small request went out.
    expect(provider.requestBytes()).toHaveLength(1);
    expect(provider.requestBytes()[0]!).toBeLessThan(2 * MIB);
    expect(res.json.telemetry).toBeDefined();
  }, 120_000);
});

describe("a provider that sends headers, then drips or goes silent", () => {
  for (const behaviour of ["drip", "silent"] as const) {
    it.each(["chat", "responses", "anthropic"] as const)(
      `${behaviour}, %s: the turn ends at provider.timeoutMs with PROVIDER_FAILED naming it, and the connection is cut`,
      async (api) => {
        const provider = await hostile(behaviour);
        const gateway = await gatewayFor(api, provider, { provider: { timeoutMs: 1_500 } });
        const cut = provider.whenCutOff(1);
        const res = await postJson(`${gateway.url}/v1/runs`, { sessionId: `${behaviour}-${api}`, input: "read the file" });
        expect(res.status).toBe(502);
        expect(res.json.error).toMatchObject({
          code: "PROVIDER_FAILED",
          message: expect.stringContaining("did not finish its answer (headers and body) within 1500 ms"),
        });
        // The stand-in sees its answer cut off: the gateway does not keep reading a drip after giving up.
        await cut;
        expect(provider.cutOff()).toBe(1);
        expect((await fetch(`${gateway.url}/healthz`)).status).toBe(200);
      },
      60_000,
    );
  }

  it("gateway.turnTimeoutMs ends the whole turn when it comes before provider.timeoutMs: TURN_BUDGET", async () => {
    const provider = await hostile("silent");
    const gateway = await gatewayFor("chat", provider, { provider: { timeoutMs: 120_000 }, gateway: { turnTimeoutMs: 1_500 } });
    const cut = provider.whenCutOff(1);
    const res = await postJson(`${gateway.url}/v1/runs`, { sessionId: "turn-deadline", input: "read the file" });
    expect(res.status).toBe(502);
    expect(res.json.error).toMatchObject({
      code: "TURN_BUDGET",
      message: expect.stringContaining("ran past its 1500 ms deadline (turnTimeoutMs; gateway.turnTimeoutMs"),
    });
    await cut;
  }, 60_000);
});

describe("turn budget settings", () => {
  it("have defaults in one place and are range-checked", () => {
    const config = resolveServerConfig({}, process.cwd(), {});
    expect(config.gateway).toMatchObject({ maxTurnResultBytes: MIB, turnTimeoutMs: 600_000 });
    expect(config.provider).toMatchObject({ maxRequestBytes: 16 * MIB, timeoutMs: 60_000 });
    expect(() => resolveServerConfig({ gateway: { maxTurnResultBytes: 10 } }, process.cwd(), {})).toThrow(
      /gateway.maxTurnResultBytes: must be an integer from 1024/,
    );
    expect(() => resolveServerConfig({ gateway: { turnTimeoutMs: "soon" } }, process.cwd(), {})).toThrow(expect.objectContaining({ code: "CONFIG_INVALID" }));
    expect(() => resolveServerConfig({ provider: { maxRequestBytes: 0 } }, process.cwd(), {})).toThrow(/provider.maxRequestBytes/);
  });
});
