/**
 * Gateway identity from bearer tokens: a real gateway (startGateway) on loopback in front of
 * the scripted provider, a small catalog whose policy has an owner-only tool, an agent-scoped
 * deny and a channel-scoped deny, and the built CLI run as a process for the exit-2 paths.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { pluginTools } from "../../src/catalog/sources.js";
import type { ToolDefinition } from "../../src/catalog/types.js";
import { isLoopbackHost } from "../../src/auth/token-auth.js";
import { resolveServerConfig } from "../../src/config/server-config.js";
import { startGateway, type Gateway } from "../../src/gateway/gateway-server.js";
import { startMockProvider, type MockProvider } from "../../src/mock-provider/mock-provider.js";
import { CLI } from "../e2e/processes.js";

const OWNER = "owner-token-0123456789abcdef";
const BOT = "bot-token-0123456789abcdef";
const GUEST = "guest-token-0123456789abcdef";
const ENV_TOKEN = "env-token-0123456789abcdef";
const ENV_NAME = "TOOLSEARCH_TEST_GATEWAY_TOKEN";

const tool = (name: string, description: string): ToolDefinition => ({
  name,
  description,
  inputSchema: { type: "object", properties: {} },
  execute: () => ({ done: name }),
});
const catalog = [
  tool("admin_reset_password", "Reset the password of a staff login."),
  tool("weather_forecast", "Get the weather forecast for a city."),
  tool("list_invoices", "List the open invoices of a customer."),
];

const policy = {
  ownerOnly: ["*admin*"],
  agents: { "support-bot": { deny: ["*weather*"] } },
  channels: { slack: { deny: ["*invoice*"] } },
};

const tokens = [
  { token: OWNER, owner: true },
  { token: BOT, agentId: "support-bot", channels: ["slack"], modes: ["direct", "tools"] },
  { token: GUEST },
  { tokenEnv: ENV_NAME, channels: ["web", "cli"], modes: ["tools"] },
];

async function startAuthGateway(providerUrl: string, extra: { host?: string } = {}): Promise<Gateway> {
  const config = resolveServerConfig(
    {
      tools: { toolSearch: { mode: "direct" } },
      policy,
      provider: { baseURL: providerUrl, timeoutMs: 10_000 },
      gateway: { port: 0, ...extra, auth: { tokens } },
    },
    process.cwd(),
    { [ENV_NAME]: ENV_TOKEN },
  );
  return startGateway(config, { sources: [pluginTools("acme", catalog)] });
}

interface Answer {
  status: number;
  headers: Headers;
  json: Record<string, unknown>;
}

async function post(url: string, token: string | undefined, body: unknown): Promise<Answer> {
  const headers: Record<string, string> = { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) };
  const response = await fetch(url, { method: "POST", headers, body: typeof body === "string" ? body : JSON.stringify(body) });
  return { status: response.status, headers: response.headers, json: (await response.json()) as Record<string, unknown> };
}

const calledTools = (answer: Answer) => (answer.json.toolCalls as Array<{ name: string }>).map((c) => c.name);

describe("gateway with gateway.auth", () => {
  let provider: MockProvider;
  let gateway: Gateway;
  let runs: string;
  const run = (token: string | undefined, body: Record<string, unknown>) => post(runs, token, { sessionId: "s", ...body });

  beforeAll(async () => {
    provider = await startMockProvider();
    gateway = await startAuthGateway(provider.url);
    runs = `${gateway.url}/v1/runs`;
  });
  afterAll(async () => {
    await gateway.close();
    await provider.close();
  });

  it("answers 401 with WWW-Authenticate: Bearer without a token, with a wrong one, or with another scheme", async () => {
    // Each says what was wrong: no token, a token that matches none, a header of another form.
    const cases: Array<[string | undefined, string]> = [
      [undefined, "needs a token: send Authorization: Bearer <token>"],
      [`Bearer ${GUEST}x`, "The bearer token was not accepted"],
      ["Bearer wrong-token-0123456789abcdef", "The bearer token was not accepted"],
      [`Basic ${GUEST}`, 'is not "Bearer <token>"'],
      ["Bearer", 'is not "Bearer <token>"'],
    ];
    for (const [authorization, said] of cases) {
      const response = await fetch(runs, {
        method: "POST",
        headers: { "content-type": "application/json", ...(authorization ? { authorization } : {}) },
        body: JSON.stringify({ sessionId: "s", input: "x" }),
      });
      expect(response.status, String(authorization)).toBe(401);
      expect(response.headers.get("www-authenticate")).toBe("Bearer");
      expect(await response.json()).toEqual({ error: { code: "UNAUTHORIZED", message: expect.stringContaining(said) } });
    }
    // Unknown routes do not tell a caller without a token what exists.
    expect((await fetch(`${gateway.url}/nope`)).status).toBe(401);
    expect(provider.received()).toBe(0);
  });

  it("refuses a 2 MB body without a token with 401 before reading it (not 413), then keeps serving", async () => {
    const huge = JSON.stringify({ sessionId: "s", input: "x".repeat(2 * 1024 * 1024) });
    const answer = await post(runs, undefined, huge);
    expect(answer.status).toBe(401);
    expect(answer.json).toMatchObject({ error: { code: "UNAUTHORIZED" } });
    // With the token the same body is read and is over the limit.
    const withToken = await fetch(runs, {
      method: "POST",
      headers: { authorization: `Bearer ${GUEST}`, "content-type": "application/json" },
      body: huge,
    }).catch((e: unknown) => e);
    // 413, or the connection closed while the client was still sending the body past the limit.
    expect([413, "closed"]).toContain(withToken instanceof Response ? withToken.status : "closed");
    expect((await run(GUEST, { input: "weather forecast for a city" })).status).toBe(200);
  });

  it("runs with a valid token", async () => {
    const answer = await run(GUEST, { input: "weather forecast for a city" });
    expect(answer.status).toBe(200);
    expect(answer.json.status).toBe("answered");
    expect(calledTools(answer)).toEqual(["weather_forecast"]);
  });

  it("takes owner from the token: a non-owner token cannot claim owner, and does not see owner-only tools", async () => {
    const claimed = await run(GUEST, { input: "reset the staff password", owner: true });
    expect(claimed.status).toBe(403);
    expect(claimed.json).toEqual({ error: { code: "FORBIDDEN", message: expect.stringMatching(/^owner: /) } });
    expect(calledTools(await run(GUEST, { input: "reset the staff password" }))).toEqual([]);
    expect(calledTools(await run(OWNER, { input: "reset the staff password" }))).toEqual(["admin_reset_password"]);
    // An owner token may run as a non-owner.
    expect(calledTools(await run(OWNER, { input: "reset the staff password", owner: false }))).toEqual([]);
  });

  it("takes agentId and the only channel from the token when the body omits them, so their denies apply", async () => {
    expect(calledTools(await run(GUEST, { input: "weather forecast for a city" }))).toEqual(["weather_forecast"]);
    expect(calledTools(await run(BOT, { input: "weather forecast for a city" }))).toEqual([]);
    expect(calledTools(await run(GUEST, { input: "list open invoices" }))).toEqual(["list_invoices"]);
    expect(calledTools(await run(BOT, { input: "list open invoices" }))).toEqual([]);
    const named = await run(BOT, { input: "list open invoices", agentId: "support-bot", channel: "slack", mode: "direct" });
    expect(named.status).toBe(200);
  });

  it("answers 403 naming the field for an agentId, channel or mode the token does not allow", async () => {
    const cases: Array<[string, Record<string, unknown>, string]> = [
      [BOT, { agentId: "other-agent" }, "agentId"],
      [BOT, { channel: "web" }, "channel"],
      [BOT, { mode: "code" }, "mode"],
      [ENV_TOKEN, { mode: "direct", channel: "web" }, "mode"],
      [ENV_TOKEN, { channel: "slack" }, "channel"],
      // Two channels: the body must pick one, or the run would skip channel rules.
      [ENV_TOKEN, {}, "channel"],
    ];
    for (const [token, fields, field] of cases) {
      const answer = await run(token, { input: "weather forecast for a city", ...fields });
      expect(answer.status, JSON.stringify(fields)).toBe(403);
      expect(answer.json).toEqual({ error: { code: "FORBIDDEN", message: expect.stringMatching(new RegExp(`^${field}: `)) } });
    }
  });

  it("accepts a token read from tokenEnv, with that entry's modes", async () => {
    const answer = await run(ENV_TOKEN, { input: "weather forecast for a city", channel: "web" });
    expect(answer.status).toBe(200);
    // The gateway runs direct mode; this token allows only tools mode, so an unnamed mode is tools.
    expect(answer.json.mode).toBe("tools");
    expect(calledTools(answer)).toEqual(["tool_search", "tool_describe", "tool_call"]);
  });

  it("answers an internal failure with a generic 500 and keeps the detail on stderr", async () => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const failing = vi.spyOn(gateway.engine, "prepareRun").mockRejectedValueOnce(new Error("cannot open /srv/secret/index.db"));
    try {
      const answer = await run(GUEST, { input: "weather forecast for a city" });
      expect(answer.status).toBe(500);
      expect(answer.json).toEqual({ error: { code: "INTERNAL", message: "internal error" } });
      expect(logged).toHaveBeenCalledWith(expect.stringContaining("cannot open /srv/secret/index.db"));
    } finally {
      failing.mockRestore();
      logged.mockRestore();
    }
    expect((await run(GUEST, { input: "weather forecast for a city" })).status).toBe(200);
  });

  it("answers /healthz with only { ok: true } without a valid token, and with a token what its policy admits", async () => {
    expect(await (await fetch(`${gateway.url}/healthz`)).json()).toEqual({ ok: true });
    expect(await (await fetch(`${gateway.url}/healthz`, { headers: { authorization: "Bearer not-a-token-at-all-xx" } })).json()).toEqual({ ok: true });
    const health = async (token: string) =>
      (await (await fetch(`${gateway.url}/healthz`, { headers: { authorization: `Bearer ${token}` } })).json()) as Record<string, unknown>;
    expect(await health(OWNER)).toMatchObject({
      ok: true,
      mode: "direct",
      catalog: { size: 3, sources: [{ source: "plugin", toolset: "acme", ok: true, tools: 3 }] },
    });
    // Not an owner: the owner-only tool is not counted.
    expect(await health(GUEST)).toMatchObject({
      ok: true,
      mode: "direct",
      catalog: { size: 2, sources: [{ source: "plugin", toolset: "acme", ok: true, tools: 2 }] },
    });
    // support-bot on slack is denied weather and invoices, and is no owner: no tool, so no source.
    expect(await health(BOT)).toMatchObject({ ok: true, catalog: { size: 0, sources: [] } });
  });
});

describe("gateway.auth config", () => {
  const resolve =
    (auth: unknown, env: NodeJS.ProcessEnv = {}) =>
    () =>
      resolveServerConfig({ gateway: { auth } }, process.cwd(), env);

  it("rejects short tokens without printing them", () => {
    expect(resolve({ tokens: [{ token: "tiny-secret" }] })).toThrow(
      expect.objectContaining({
        code: "CONFIG_INVALID",
        message: expect.stringContaining("gateway.auth.tokens.0.token: must NOT have fewer than 16 characters"),
      }),
    );
    expect(resolve({ tokens: [{ token: "tiny-secret" }] })).not.toThrow(/tiny-secret/);
    expect(resolve({ tokens: ["a-bare-secret-string-0123"] })).toThrow(/gateway\.auth\.tokens\.0: must be object; got "<redacted>"/);
  });

  it("needs exactly one of token or tokenEnv, distinct tokens, and at least one entry", () => {
    expect(resolve({ tokens: [{ token: GUEST, tokenEnv: ENV_NAME }] })).toThrow(/gateway\.auth\.tokens\.0: give exactly one of "token" or "tokenEnv"/);
    expect(resolve({ tokens: [{ owner: true }] })).toThrow(/exactly one of "token" or "tokenEnv"/);
    expect(resolve({ tokens: [{ token: GUEST }, { token: GUEST, owner: true }] })).toThrow(
      /gateway\.auth\.tokens\.1: the same token as gateway\.auth\.tokens\.0/,
    );
    expect(resolve({ tokens: [{ token: GUEST }, { tokenEnv: ENV_NAME }] }, { [ENV_NAME]: GUEST })).toThrow(/gateway\.auth\.tokens\.1: the same token/);
    expect(resolve({ tokens: [] })).toThrow(/gateway\.auth\.tokens/);
    expect(resolve({ tokens: [{ token: GUEST, modes: ["fast"] }] })).toThrow(/must be one of "direct", "code", "tools", "directory"/);
    expect(resolve({ tokens: [{ token: GUEST, role: "admin" }] })).toThrow(/unknown option "role"/);
  });

  it("names a tokenEnv variable that is missing, empty or too short", () => {
    const entry = { tokens: [{ tokenEnv: ENV_NAME }] };
    expect(resolve(entry)).toThrow(new RegExp(`tokenEnv: the environment variable ${ENV_NAME} is not set`));
    expect(resolve(entry, { [ENV_NAME]: "" })).toThrow(new RegExp(`${ENV_NAME} is empty`));
    expect(resolve(entry, { [ENV_NAME]: "short" })).toThrow(new RegExp(`${ENV_NAME} holds 5 characters`));
    expect(resolve(entry, { [ENV_NAME]: ENV_TOKEN })().gateway.auth?.tokens).toEqual([{ token: ENV_TOKEN }]);
  });
});

describe("loopback rule", () => {
  it("knows loopback hosts", () => {
    for (const host of ["127.0.0.1", "127.8.9.10", "::1", "[::1]", "localhost", "LOCALHOST", "0:0:0:0:0:0:0:1", "::ffff:127.0.0.1"])
      expect(isLoopbackHost(host), host).toBe(true);
    for (const host of ["0.0.0.0", "::", "10.0.0.1", "192.168.1.2", "example.com", "128.0.0.1", "::2"]) expect(isLoopbackHost(host), host).toBe(false);
  });

  it("startGateway refuses a non-loopback host without gateway.auth (CONFIG_INVALID naming gateway.auth)", async () => {
    const config = resolveServerConfig({ gateway: { host: "0.0.0.0", port: 0 } }, process.cwd(), {});
    await expect(startGateway(config)).rejects.toMatchObject({ code: "CONFIG_INVALID", message: expect.stringContaining("gateway.auth") });
  });

  it("startGateway binds a non-loopback host with gateway.auth", async () => {
    const provider = await startMockProvider();
    const gateway = await startAuthGateway(provider.url, { host: "0.0.0.0" });
    try {
      const health = await fetch(`http://127.0.0.1:${gateway.port}/healthz`);
      expect(await health.json()).toEqual({ ok: true });
    } finally {
      await gateway.close();
      await provider.close();
    }
  });
});

describe("toolsearch serve and config set (built CLI)", () => {
  // spawnSync waits for exit; the timeout kills a serve that wrongly started, so none is left running.
  const cli = (cwd: string, args: string[], env: NodeJS.ProcessEnv = {}) =>
    spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: "utf8", timeout: 20_000, killSignal: "SIGKILL", env: { ...process.env, ...env } });

  it("serve --host 0.0.0.0 without gateway.auth exits 2 with one line naming gateway.auth", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "toolsearch-auth-"));
    const result = cli(dir, ["serve", "--host", "0.0.0.0", "--port", "0"]);
    expect(result.signal).toBeNull();
    expect(result.status).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr.trim().split("\n")).toEqual([expect.stringMatching(/^toolsearch serve: .*gateway\.auth/)]);
  });

  it("serve with gateway.host 0.0.0.0 in the config, or a missing tokenEnv, exits 2", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "toolsearch-auth-"));
    writeFileSync(path.join(dir, "exposed.json5"), "{ gateway: { host: '0.0.0.0', port: 0 } }\n");
    expect(cli(dir, ["serve", "--config", "exposed.json5"])).toMatchObject({ status: 2, stderr: expect.stringContaining("gateway.auth") });
    writeFileSync(path.join(dir, "env.json5"), `{ gateway: { port: 0, auth: { tokens: [{ tokenEnv: '${ENV_NAME}' }] } } }\n`);
    const missing = cli(dir, ["serve", "--config", "env.json5"], { [ENV_NAME]: "" });
    expect(missing.status).toBe(2);
    expect(missing.stderr.trim()).toBe(`toolsearch serve: gateway.auth.tokens.0.tokenEnv: the environment variable ${ENV_NAME} is empty`);
  });

  it("config set validates gateway.auth and does not echo the token", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "toolsearch-auth-"));
    const bad = cli(dir, ["config", "set", "gateway.auth.tokens", "[{token: 'tiny-secret'}]"]);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain("gateway.auth.tokens.0.token: must NOT have fewer than 16 characters");
    expect(bad.stderr).not.toContain("tiny-secret");
    expect(cli(dir, ["config", "set", "gateway.auth.tokens", `[{token: '${GUEST}', tokenEnv: 'X'}]`]).status).toBe(2);
    expect(cli(dir, ["config", "set", "gateway.auth.tokens", `[{tokenEnv: '${ENV_NAME}', agentId: 'bot', channels: ['web'], modes: ['tools']}]`]).status).toBe(
      0,
    );
  });
});
