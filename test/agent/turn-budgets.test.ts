/**
 * runAgentTurn's budgets as a library function, with the official clients and their own fetch
 * (no gateway, no boundedProviderFetch) against a provider stand-in on 127.0.0.1: `timeoutMs` covers the
 * whole answer, `turnTimeoutMs` the whole turn (a tool call in flight included), the request
 * size is counted exactly as the client sends it, and tool results share one byte budget.
 */
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHostileProvider, type HostileProviderOptions } from "../../bench/stall/hostile-provider.js";
import { runAgentTurn, type AgentProvider, type AgentTurnInput, type AgentTurnResult } from "../../src/agent/agent-turn.js";
import type { ToolDefinition } from "../../src/catalog/types.js";
import { createToolSearch, pluginTools, type ToolSearchEngine } from "../../src/index.js";
import type { ProviderApi } from "../../src/wire/wire-types.js";

const MIB = 1024 * 1024;
const cancelledCalls: string[] = [];
const tools: ToolDefinition[] = [
  {
    name: "big_result",
    description: "Returns a mebibyte of data about a file.",
    inputSchema: { type: "object", properties: {} },
    execute: () => ({ data: "x".repeat(MIB - 64) }),
  },
  {
    name: "hang_forever",
    description: "Waits for a lock that is never released.",
    inputSchema: { type: "object", properties: {} },
    execute: (_args, ctx) =>
      new Promise((resolve) => ctx.signal.addEventListener("abort", () => resolve(cancelledCalls.push(String(ctx.signal.reason)) && "cancelled"))),
  },
];

let engine: ToolSearchEngine;
beforeAll(async () => {
  engine = await createToolSearch({ toolSearch: { mode: "direct" }, sources: [pluginTools("files", tools)] });
});
afterAll(async () => {
  await engine.close();
});

function clientFor(api: ProviderApi, url: string, origin: string): AgentProvider {
  if (api === "anthropic") return { api, client: new Anthropic({ baseURL: origin, apiKey: "x", maxRetries: 0 }), model: "m" };
  return { api, client: new OpenAI({ baseURL: url, apiKey: "x", maxRetries: 0 }), model: "m" };
}

interface Outcome {
  result?: AgentTurnResult;
  error?: Error & { code?: string };
  sizes: number[];
}

/** One turn against a fresh stand-in; the stand-in's record comes back with the outcome. */
async function turnAgainst(options: HostileProviderOptions, api: ProviderApi, input: Partial<AgentTurnInput>): Promise<Outcome> {
  const provider = await startHostileProvider(options);
  const run = await engine.prepareRun({ sessionId: `budget-${api}` });
  try {
    const outcome = await runAgentTurn({
      run,
      provider: clientFor(api, provider.url, provider.origin),
      messages: [{ role: "user", content: "read the file" }],
      ...input,
    }).then(
      (result): Pick<Outcome, "result" | "error"> => ({ result }),
      (error: unknown) => ({ error: error as Error & { code?: string } }),
    );
    return { ...outcome, sizes: provider.requestBytes() };
  } finally {
    await run.end();
    await provider.close();
  }
}

describe("runAgentTurn budgets", () => {
  it.each([
    ["drips", "drip"],
    ["goes silent", "silent"],
  ] as const)(
    "timeoutMs covers the body too: a provider that %s after its headers fails the turn at the deadline",
    async (_what, behaviour) => {
      const provider = await startHostileProvider({ behaviour });
      const run = await engine.prepareRun({ sessionId: `deadline-${behaviour}` });
      try {
        const cut = provider.whenCutOff(1);
        await expect(
          runAgentTurn({ run, provider: clientFor("chat", provider.url, provider.origin), messages: [{ role: "user", content: "x" }], timeoutMs: 1_000 }),
        ).rejects.toMatchObject({
          code: "PROVIDER_FAILED",
          message: expect.stringContaining("within 1000 ms"),
        });
        await cut;
      } finally {
        await run.end();
        await provider.close();
      }
    },
    60_000,
  );

  it("turnTimeoutMs ends the turn inside a tool call that never returns, and cancels the call", async () => {
    const before = cancelledCalls.length;
    const { error } = await turnAgainst({ behaviour: "amplify", tool: "hang_forever", calls: 1 }, "chat", { turnTimeoutMs: 1_000 });
    expect(error).toMatchObject({ code: "TURN_BUDGET", message: expect.stringContaining("ran past its 1000 ms deadline") });
    expect(cancelledCalls.length).toBe(before + 1);
  }, 60_000);

  it.each(["chat", "responses", "anthropic"] as const)(
    "%s: the request size is counted as the client sends it; one byte over maxRequestBytes is not sent",
    async (api) => {
      const amplify = { behaviour: "amplify", calls: 3 } as const;
      const free = await turnAgainst(amplify, api, { maxTurns: 2 });
      expect(free.result).toMatchObject({ status: "max_turns" });
      const [, second] = free.sizes;
      const exact = await turnAgainst(amplify, api, { maxTurns: 2, maxRequestBytes: second! });
      expect(exact.result).toMatchObject({ status: "max_turns" });
      expect(exact.sizes).toEqual(free.sizes);
      const under = await turnAgainst(amplify, api, { maxTurns: 2, maxRequestBytes: second! - 1 });
      expect(under.error).toMatchObject({
        code: "TURN_BUDGET",
        message: expect.stringContaining(`would be ${second} bytes, over the ${second! - 1}-byte limit`),
      });
      expect(under.sizes).toHaveLength(1);
    },
    60_000,
  );

  it("maxTurnResultBytes: whole results while the budget lasts, then a cut one, then calls refused unrun", async () => {
    let ran = 0;
    const counting = await createToolSearch({
      toolSearch: { mode: "direct" },
      sources: [pluginTools("files", [{ ...tools[0]!, execute: () => ((ran += 1), { data: "x".repeat(MIB - 64) }) }])],
    });
    const provider = await startHostileProvider({ behaviour: "amplify", calls: 4 });
    const run = await counting.prepareRun({ sessionId: "budget-results" });
    const result = await runAgentTurn({
      run,
      provider: clientFor("chat", provider.url, provider.origin),
      messages: [{ role: "user", content: "x" }],
      maxTurns: 1,
      maxTurnResultBytes: 1.5 * MIB,
    }).finally(async () => {
      await run.end();
      await provider.close();
      await counting.close();
    });
    const contents = result.toolCalls.map((c) => c.content);
    expect(contents).toHaveLength(4);
    expect(contents[0]!.includes("[toolsearch: result cut")).toBe(false);
    expect(contents[1]!.slice(-300)).toMatch(
      /\[toolsearch: result cut to \d+ of \d+ bytes \(maxTurnResultBytes: this turn's budget for tool results is spent\); answer with what you have, or ask for less\]$/,
    );
    expect(Buffer.byteLength(contents[0]!) + Buffer.byteLength(contents[1]!)).toBeLessThanOrEqual(1.5 * MIB);
    for (const c of contents.slice(2))
      expect(JSON.parse(c)).toMatchObject({
        ok: false,
        error: { code: "TURN_BUDGET", message: expect.stringContaining("maxTurnResultBytes, 1572864 bytes) is spent, so the call was not run") },
      });
    expect(ran).toBe(2);
  }, 60_000);

  it("refuses budgets that are not whole numbers in range, unknown keys and a bad run or messages, naming the key, what is allowed and the value", async () => {
    const run = await engine.prepareRun({ sessionId: "budget-bad" });
    const base = { run, provider: clientFor("chat", "http://127.0.0.1:9/v1", "http://127.0.0.1:9"), messages: [{ role: "user" as const, content: "x" }] };
    try {
      for (const bad of [{ timeoutMs: 0 }, { turnTimeoutMs: 1.5 }, { maxRequestBytes: -1 }, { maxTurnResultBytes: Number.NaN }]) {
        await expect(runAgentTurn({ ...base, ...bad })).rejects.toMatchObject({
          code: "CONFIG_INVALID",
          message: expect.stringContaining(`runAgentTurn.${Object.keys(bad)[0]!}: must be an integer from `),
        });
      }
      await expect(runAgentTurn({ ...base, maxTurns: 101 })).rejects.toMatchObject({
        code: "CONFIG_INVALID",
        message: "runAgentTurn.maxTurns: must be an integer from 1 to 100; got 101 (number)",
      });
      await expect(runAgentTurn({ ...base, maxturns: 3 } as never)).rejects.toMatchObject({
        code: "CONFIG_INVALID",
        message: expect.stringContaining('runAgentTurn: unknown option "maxturns" (did you mean "maxTurns"?)'),
      });
      await expect(runAgentTurn({ ...base, messages: [] })).rejects.toMatchObject({
        code: "CONFIG_INVALID",
        message: "runAgentTurn.messages: must be a non-empty list of messages; got [] (array)",
      });
      await expect(runAgentTurn({ ...base, run: {} as never })).rejects.toMatchObject({
        code: "CONFIG_INVALID",
        message: expect.stringContaining("runAgentTurn.run: must be a ToolSearchRun (engine.prepareRun)"),
      });
      // The defaults go into a copy: the caller's input is left as it was.
      const input = { ...base, maxRequestBytes: 10 };
      await expect(runAgentTurn(input)).rejects.toMatchObject({ code: "TURN_BUDGET" });
      expect(input).not.toHaveProperty("maxTurns");
    } finally {
      await run.end();
    }
  });
});
