/** Config resolution rows of issue 10: keyed mcpServers, ${VAR}, paths from the config's folder, the mcp section, maxResultBytes. */
import path from "node:path";
import { describe, expect, it } from "vitest";
import { resolveToolSearchConfig } from "../../src/settings/tool-search-config.js";
import { boundResult } from "../../src/engine/run.js";
import { resolveServerConfig, substituteEnv } from "../../src/config/server-config.js";

const dir = path.resolve("/srv/conf");

describe("mcpServers", () => {
  it("takes the keyed form of Claude Desktop and Cursor, in key order, with type ignored", () => {
    const config = resolveServerConfig(
      { mcpServers: { memory: { command: "npx", args: ["-y", "x"], type: "stdio" }, web: { url: "http://127.0.0.1:9/mcp" } } },
      dir,
      {},
    );
    expect(config.mcpServers).toEqual([
      { name: "memory", command: "npx", args: ["-y", "x"], cwd: dir },
      { name: "web", url: "http://127.0.0.1:9/mcp" },
    ]);
  });

  it("runs stdio servers in the config's folder; relative cwd and ./command resolve there; bare commands stay for PATH", () => {
    const config = resolveServerConfig(
      {
        mcpServers: [
          { name: "a", command: "./bin/server", cwd: "data" },
          { name: "b", command: "node", args: ["./s.mjs"] },
        ],
      },
      dir,
      {},
    );
    expect(config.mcpServers).toEqual([
      { name: "a", command: path.join(dir, "bin/server"), cwd: path.join(dir, "data") },
      { name: "b", command: "node", args: ["./s.mjs"], cwd: dir },
    ]);
  });

  it("refuses a name twice, a bad name, and an entry with neither command nor url", () => {
    expect(() =>
      resolveServerConfig(
        {
          mcpServers: [
            { name: "a", command: "x" },
            { name: "a", command: "y" },
          ],
        },
        dir,
        {},
      ),
    ).toThrow(/a second server named "a"/);
    expect(() => resolveServerConfig({ mcpServers: { "bad name": { command: "x" } } }, dir, {})).toThrow(/CONFIG_INVALID|mcpServers/);
    expect(() => resolveServerConfig({ mcpServers: { a: { args: [] } } }, dir, {})).toThrow(/mcpServers/);
  });
});

describe("${VAR} substitution", () => {
  it("replaces variables in every string, keeps $${ literal, names a missing variable and where it is used", () => {
    expect(substituteEnv({ a: ["x-${A}-${B}"], b: "$${A}", c: 5 }, { A: "1", B: "2" }, "")).toEqual({ a: ["x-1-2"], b: "${A}", c: 5 });
    expect(() => substituteEnv({ mcpServers: { m: { env: { KEY: "${NOPE}" } } } }, {}, "")).toThrow(
      "mcpServers.m.env.KEY: the environment variable NOPE is not set (used as ${NOPE})",
    );
    expect(() => substituteEnv({ a: "${1x}" }, {}, "")).toThrow(/not a variable name/);
    const config = resolveServerConfig({ mcpServers: { m: { command: "node", env: { TOKEN: "${T}" } } }, provider: { apiKey: "${K}" } }, dir, {
      T: "t",
      K: "k",
    });
    expect(config.mcpServers[0]).toMatchObject({ env: { TOKEN: "t" } });
    expect(config.provider.apiKey).toBe("k");
  });
});

describe("the server sections' defaults", () => {
  it("an empty config resolves to every default, and the caller's object is left as it was", () => {
    const raw = {};
    const config = resolveServerConfig(raw, dir, {});
    expect(raw).toEqual({});
    expect(config.provider).toEqual({
      api: "chat",
      baseURL: "http://127.0.0.1:8787/v1",
      apiKey: "not-needed-for-local",
      model: "scripted",
      models: [{ id: "scripted", model: "scripted" }],
      timeoutMs: 60_000,
      maxResponseBytes: 16 * 1024 * 1024,
      maxRequestBytes: 16 * 1024 * 1024,
    });
    expect(config.gateway).toEqual({
      host: "127.0.0.1",
      port: 8788,
      maxTurns: 8,
      maxTurnResultBytes: 1024 * 1024,
      turnTimeoutMs: 600_000,
      maxBodyBytes: 1024 * 1024,
      drainMs: 10_000,
      trustLoopbackIdentity: false,
      admin: true,
      workers: { restartsPerMinute: 5, cooldownMs: 60_000, heartbeatMs: 1_000, killUnresponsiveMs: 30_000 },
    });
    expect(config.plugins).toEqual([]);
    expect(config.metrics).toEqual({ prometheus: false, otlp: false, exportIntervalMs: 60_000 });
  });

  it("a value given replaces only its own default; the command line's host and port come first", () => {
    const config = resolveServerConfig(
      { gateway: { port: 9000, workers: { heartbeatMs: 500 } }, provider: { api: "anthropic" } },
      dir,
      {},
      { host: "0.0.0.0" },
    );
    expect(config.gateway).toMatchObject({ host: "0.0.0.0", port: 9000, maxTurns: 8, workers: { restartsPerMinute: 5, heartbeatMs: 500 } });
    expect(config.provider).toMatchObject({ api: "anthropic", baseURL: "http://127.0.0.1:8787", timeoutMs: 60_000 });
  });

  it("refuses a number out of range naming the key, the range and the value", () => {
    expect(() => resolveServerConfig({ gateway: { maxTurns: 500 } }, dir, {})).toThrow(
      /config\.gateway\.maxTurns: must be an integer from 1 to 100; got 500 \(number\)/,
    );
    expect(() => resolveServerConfig({ gateway: { workers: { heartbeatMs: 1 } } }, dir, {})).toThrow(
      /config\.gateway\.workers\.heartbeatMs: must be an integer from 100 to 60000; got 1 \(number\)/,
    );
  });
});

describe("the mcp section", () => {
  it("has defaults, takes an identity, refuses unknown keys", () => {
    const budgets = { maxInFlightPerSession: 8, maxUnreadBytes: 16 * 1024 * 1024 };
    expect(resolveServerConfig({}, dir, {}).mcp).toEqual({ maxSessions: 32, sessionIdleMs: 1_800_000, maxSessionsPerTenant: 8, ...budgets });
    expect(resolveServerConfig({ mcp: { agentId: "desk", owner: false, channel: "ide", maxSessions: 4 } }, dir, {}).mcp).toEqual({
      agentId: "desk",
      owner: false,
      channel: "ide",
      maxSessions: 4,
      sessionIdleMs: 1_800_000,
      maxSessionsPerTenant: 1,
      ...budgets,
    });
    expect(() => resolveServerConfig({ mcp: { agent: "x" } }, dir, {})).toThrow(/mcp/);
    expect(() => resolveServerConfig({ mcp: { maxSessions: 0 } }, dir, {})).toThrow(/maxSessions/);
  });

  it("takes a tenant's share and the per-session budgets; a share above the whole is refused", () => {
    const mcp = resolveServerConfig({ mcp: { maxSessions: 10, maxSessionsPerTenant: 10, maxInFlightPerSession: 2, maxUnreadBytes: 65_536 } }, dir, {}).mcp;
    expect(mcp).toMatchObject({ maxSessions: 10, maxSessionsPerTenant: 10, maxInFlightPerSession: 2, maxUnreadBytes: 65_536 });
    expect(resolveServerConfig({ mcp: { maxSessions: 10 } }, dir, {}).mcp.maxSessionsPerTenant).toBe(3);
    expect(() => resolveServerConfig({ mcp: { maxSessions: 4, maxSessionsPerTenant: 5 } }, dir, {})).toThrow(
      /mcp\.maxSessionsPerTenant \(5\) is above mcp\.maxSessions \(4\)/,
    );
    expect(() => resolveServerConfig({ mcp: { maxInFlightPerSession: 0 } }, dir, {})).toThrow(/maxInFlightPerSession/);
    expect(() => resolveServerConfig({ mcp: { maxUnreadBytes: 1024 } }, dir, {})).toThrow(/maxUnreadBytes/);
  });
});

describe("maxResultBytes", () => {
  it("defaults to 1 MiB; outside 1 KiB..64 MiB it is refused, not clamped", () => {
    expect(resolveToolSearchConfig(undefined).maxResultBytes).toBe(1_048_576);
    expect(resolveToolSearchConfig({ maxResultBytes: 1_024 }).maxResultBytes).toBe(1_024);
    expect(() => resolveToolSearchConfig({ maxResultBytes: 10 })).toThrow(/maxResultBytes: must be an integer from 1024 to 67108864; got 10 \(number\)/);
    expect(() => resolveToolSearchConfig({ maxResultBytes: 1e12 })).toThrow(expect.objectContaining({ code: "CONFIG_INVALID" }));
  });

  it("cuts at a character boundary, within the limit, with a marker", () => {
    expect(boundResult("short", 1024)).toEqual({ text: "short", truncated: false });
    for (const unit of ["a", "é", "€", "😀"]) {
      const { text, truncated } = boundResult(unit.repeat(5_000), 2_048);
      expect(truncated).toBe(true);
      expect(Buffer.byteLength(text)).toBeLessThanOrEqual(2_048);
      expect(text).not.toContain("\uFFFD");
      expect(text).toMatch(/\[toolsearch: result cut to 2048 of \d+ bytes/);
      expect(text.startsWith(unit.repeat(10))).toBe(true);
    }
  });
});
