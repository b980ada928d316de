/** The gateway in-process against real loopback servers: bad input, bad providers, many sessions at once. */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pluginTools } from "../../src/catalog/sources.js";
import { syntheticTools } from "../../src/demo/synthetic-catalog.js";
import { resolveServerConfig } from "../../src/config/server-config.js";
import { startGateway, type Gateway } from "../../src/gateway/gateway-server.js";
import { startMockProvider, type MockProvider } from "../../src/mock-provider/mock-provider.js";
import type { SessionEvent } from "../../src/telemetry/types.js";
import { postJson } from "../e2e/processes.js";
import { childPids } from "../support/proc.js";

const catalog = syntheticTools(300);
const source = () =>
  pluginTools(
    "acme",
    catalog.map((t) => t.definition),
  );

async function gatewayFor(baseURL: string, extra: Record<string, unknown> = {}, timeoutMs = 5_000): Promise<Gateway> {
  const config = resolveServerConfig({ provider: { baseURL, timeoutMs }, gateway: { port: 0, maxBodyBytes: 64 * 1024 }, ...extra }, process.cwd());
  return startGateway(config, { sources: [source()] });
}

/** A provider that answers with something that is not a chat completion, never answers, or answers without end. */
async function brokenProvider(kind: "garbage" | "hang" | "huge"): Promise<{ url: string; server: Server }> {
  const server = createServer((_req, res) => {
    if (kind === "garbage") res.end("<html>definitely not json</html>");
    if (kind === "huge") {
      // 4 MiB in chunks, no content-length: only a cap on what is read stops it.
      res.writeHead(200, { "content-type": "application/json" });
      const chunk = `{"pad":"${"x".repeat(64 * 1024)}"}`;
      let sent = 0;
      const more = () => {
        while (sent < 64) {
          sent += 1;
          if (!res.write(chunk)) return res.once("drain", more);
        }
        res.end();
      };
      more();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, server };
}

describe("gateway bad input", () => {
  let provider: MockProvider;
  let gateway: Gateway;
  beforeAll(async () => {
    provider = await startMockProvider();
    gateway = await gatewayFor(provider.url, { tools: { toolSearch: { mode: "tools" } } });
  });
  afterAll(async () => {
    await gateway.close();
    await provider.close();
  });

  it("answers malformed JSON, unknown fields, missing input and huge bodies with a clear 4xx, then keeps serving", async () => {
    const runs = `${gateway.url}/v1/runs`;
    expect(await postJson(runs, "{not json")).toMatchObject({
      status: 400,
      json: { error: { code: "BAD_REQUEST", message: expect.stringContaining("not valid JSON") } },
    });
    expect(await postJson(runs, { sessionId: "s", input: "x", colour: "red" })).toMatchObject({
      status: 400,
      json: { error: { message: expect.stringContaining('unknown option "colour"') } },
    });
    expect(await postJson(runs, { sessionId: "s" })).toMatchObject({
      status: 400,
      json: { error: { message: expect.stringContaining('exactly one of "input"') } },
    });
    expect(await postJson(runs, { sessionId: 5, input: "x" })).toMatchObject({
      status: 400,
      json: { error: { message: expect.stringContaining("body.sessionId: must be string") } },
    });
    // A client tool in OpenAI's or Anthropic's shape is told the shape to use.
    const openAiTool = { type: "function", function: { name: "ask_user", description: "Ask", parameters: { type: "object" } } };
    expect(await postJson(runs, { sessionId: "s", input: "x", clientTools: [openAiTool] })).toMatchObject({
      status: 400,
      json: { error: { message: expect.stringContaining("body.clientTools.0: looks like an OpenAI tool") } },
    });
    expect(await postJson(runs, { sessionId: "s", input: "x", clientTools: [{ name: "a", description: "b", input_schema: {} }] })).toMatchObject({
      status: 400,
      json: { error: { message: expect.stringContaining("use { name, description, inputSchema }") } },
    });
    const huge = await fetch(runs, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ sessionId: "s", input: "x".repeat(200_000) }),
    }).catch((e: unknown) => e);
    // 413, or the connection closed while the client was still sending the body past the limit.
    expect([413, "closed"]).toContain(huge instanceof Response ? huge.status : "closed");
    expect((await fetch(`${gateway.url}/nope`)).status).toBe(404);
    const ok = await postJson(runs, { sessionId: "after", input: catalog[5]!.request });
    expect(ok.status).toBe(200);
    expect(ok.json.status).toBe("answered");
  });

  it("forwards client tools to the client through the same call path", async () => {
    const ask = {
      name: "ask_user",
      description: "Ask the user a clarifying question about the weather forecast.",
      inputSchema: { type: "object", properties: { question: { type: "string" } }, required: ["question"] },
    };
    const res = await postJson(`${gateway.url}/v1/runs`, { sessionId: "c", input: "ask_user", clientTools: [ask] });
    expect(res.status).toBe(200);
    expect(res.json.clientToolCalls).toEqual([{ name: "ask_user", args: { question: "sample-question" } }]);
  });
});

describe("gateway with a broken provider", () => {
  it("fails the turn with PROVIDER_FAILED when an answer is over provider.maxResponseBytes", async () => {
    const broken = await brokenProvider("huge");
    const gateway = await gatewayFor(broken.url, { provider: { baseURL: broken.url, timeoutMs: 5_000, maxResponseBytes: 1024 * 1024 } });
    try {
      const res = await postJson(`${gateway.url}/v1/runs`, { sessionId: "huge", input: "anything" });
      expect(res.status).toBe(502);
      expect(res.json.error).toMatchObject({ code: "PROVIDER_FAILED", message: expect.stringContaining("1048576-byte limit") });
    } finally {
      await gateway.close();
      broken.server.closeAllConnections();
      broken.server.close();
    }
  });

  it("a caller that hangs up ends its run without waiting for the provider", async () => {
    const broken = await brokenProvider("hang");
    const dir = mkdtempSync(path.join(tmpdir(), "toolsearch-gw-"));
    // The provider's timeout (600 s) is far past the test's: only the caller hanging up can end this run.
    const gateway = await gatewayFor(broken.url, { tools: { toolSearch: { mode: "tools" } }, sessionLog: path.join(dir, "log.jsonl") }, 600_000);
    try {
      const controller = new AbortController();
      let providerHungUpOn = false;
      // The caller hangs up once the gateway is waiting for the provider.
      broken.server.on("request", (_req, res) => {
        res.on("close", () => (providerHungUpOn = true));
        controller.abort();
      });
      await expect(
        fetch(`${gateway.url}/v1/runs`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ sessionId: "gone", input: "x" }),
          signal: controller.signal,
        }),
      ).rejects.toThrow();
      const log = path.join(dir, "log.jsonl");
      const logged = () => {
        try {
          return readFileSync(log, "utf8");
        } catch {
          return "";
        }
      };
      while (!logged().includes("run_end") || !providerHungUpOn) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(logged()).toContain("run_end");
      expect(providerHungUpOn).toBe(true);
    } finally {
      await gateway.close();
      broken.server.closeAllConnections();
      broken.server.close();
    }
  });

  it("provider.api picks the API; an unknown one is a config error; anthropic reads ANTHROPIC_* variables", () => {
    const env = { ANTHROPIC_BASE_URL: "http://anthropic.test", ANTHROPIC_API_KEY: "a-key", OPENAI_BASE_URL: "http://openai.test/v1" };
    expect(resolveServerConfig({}, process.cwd(), env).provider).toMatchObject({ api: "chat", baseURL: "http://openai.test/v1" });
    expect(resolveServerConfig({ provider: { api: "responses" } }, process.cwd(), env).provider).toMatchObject({
      api: "responses",
      baseURL: "http://openai.test/v1",
    });
    expect(resolveServerConfig({ provider: { api: "anthropic" } }, process.cwd(), env).provider).toMatchObject({
      api: "anthropic",
      baseURL: "http://anthropic.test",
      apiKey: "a-key",
    });
    expect(() => resolveServerConfig({ provider: { api: "gemini" } }, process.cwd(), env)).toThrow(expect.objectContaining({ code: "CONFIG_INVALID" }));
  });

  for (const kind of ["garbage", "hang"] as const) {
    it(`ends the run with PROVIDER_FAILED when the provider ${kind === "garbage" ? "returns garbage" : "hangs"}, and keeps serving`, async () => {
      const broken = await brokenProvider(kind);
      const dir = mkdtempSync(path.join(tmpdir(), "toolsearch-gw-"));
      const gateway = await gatewayFor(broken.url, { tools: { toolSearch: { mode: "tools" } }, sessionLog: path.join(dir, "log.jsonl") }, 500);
      try {
        for (const sessionId of ["first", "second"]) {
          const res = await postJson(`${gateway.url}/v1/runs`, { sessionId, input: "anything" });
          expect(res.status).toBe(502);
          expect(res.json.error).toMatchObject({ code: "PROVIDER_FAILED", message: expect.stringContaining("provider failed") });
        }
        expect((await fetch(`${gateway.url}/healthz`)).status).toBe(200);
      } finally {
        await gateway.close();
        broken.server.closeAllConnections();
        broken.server.close();
      }
      const types = readFileSync(path.join(dir, "log.jsonl"), "utf8")
        .trim()
        .split("\n")
        .map((l) => (JSON.parse(l) as SessionEvent).type);
      expect(types).toEqual(["run_start", "run_end", "run_start", "run_end"]);
    });
  }
});

describe("provider failures say where", () => {
  it("a provider nobody listens on: the 502 names the URL tried and the model", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/v1`;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const gateway = await gatewayFor(url, { tools: { toolSearch: { mode: "tools" } } });
    try {
      const res = await postJson(`${gateway.url}/v1/runs`, { sessionId: "nowhere", input: "anything" });
      expect(res.status).toBe(502);
      expect(res.json.error).toMatchObject({ code: "PROVIDER_FAILED", message: expect.stringContaining(`(chat at ${url}, model scripted)`) });
    } finally {
      await gateway.close();
    }
  });
});

describe("many sessions at once", () => {
  // Slow on purpose: 50 code-mode bodies, each in its own sandbox child.
  it("50 concurrent code-mode sessions each get their own answer and session log, and no child is left", async () => {
    const provider = await startMockProvider();
    const dir = mkdtempSync(path.join(tmpdir(), "toolsearch-gw-"));
    const before = new Set(childPids());
    const gateway = await gatewayFor(
      provider.url,
      { tools: { toolSearch: { mode: "code", codeTimeoutMs: 30_000 } }, sessionLog: path.join(dir, "log.jsonl") },
      30_000,
    );
    let answers: Array<{ target: string; status: number; json: Record<string, unknown> }>;
    try {
      answers = await Promise.all(
        Array.from({ length: 50 }, async (_, i) => {
          const target = catalog[(i * 7) % catalog.length]!;
          const res = await postJson(`${gateway.url}/v1/runs`, { sessionId: `s${i}`, input: `${target.definition.name}: ${target.request}` });
          return { target: target.definition.name, ...res };
        }),
      );
    } finally {
      await gateway.close();
      await provider.close();
    }
    for (const [i, a] of answers.entries()) {
      expect(a.status, `session ${i}`).toBe(200);
      expect(a.json.mode).toBe("code");
      expect(String(a.json.answer), `session ${i}`).toContain(`"tool":"${a.target}"`);
    }
    const events = readFileSync(path.join(dir, "log.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as SessionEvent);
    for (const [i, a] of answers.entries()) {
      const own = events.filter((e) => e.sessionId === `s${i}`);
      expect(
        own.map((e) => e.type),
        `session ${i}`,
      ).toEqual(["run_start", "search", "describe", "call", "code_run", "run_end"]);
      expect(own.find((e) => e.type === "call")).toMatchObject({ id: `plugin:acme:${a.target}`, ok: true, via: "bridge" });
    }
    const after = childPids().filter((pid) => !before.has(pid));
    expect(after).toEqual([]);
  }, 120_000);
});
