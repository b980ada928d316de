/** A port that is taken: every server command exits non-zero, says which address, and leaves none of its MCP servers behind. */
import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI } from "../e2e/processes.js";
import { faceFixture, memoryFileEnv } from "../mcpface/fixture.js";

let blocker: Server;
let port: number;
beforeAll(async () => {
  blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
  port = (blocker.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise<void>((resolve) => blocker.close(() => resolve()));
});

/** Live processes whose command line mentions `marker` (the fixture's folder). */
function processesMentioning(marker: string): number[] {
  return readdirSync("/proc").flatMap((entry) => {
    if (!/^\d+$/.test(entry)) return [];
    try {
      return readFileSync(`/proc/${entry}/cmdline`, "utf8").includes(marker) ? [Number(entry)] : [];
    } catch {
      return [];
    }
  });
}

function runToExit(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, ...env }, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("exit", (code) => resolve({ code, stderr }));
  });
}

describe("a busy port", () => {
  for (const [label, args] of [
    ["serve", (config: string) => ["serve", "--config", config, "--port", String(port)]],
    ["serve --workers 2", (config: string) => ["serve", "--config", config, "--port", String(port), "--workers", "2"]],
    ["mcp --http", (config: string) => ["mcp", "--config", config, "--http", String(port)]],
  ] as const) {
    it(`${label}: exits 2 naming the address, and its MCP servers are gone`, { timeout: 120_000 }, async () => {
      const fixture = faceFixture();
      const { code, stderr } = await runToExit(args(fixture.configFile), memoryFileEnv(fixture.dir));
      expect(code, stderr).toBe(2);
      expect(stderr).toContain(`127.0.0.1:${port} is already in use`);
      // The memory server was started (the catalog came up) and must not outlive the command.
      expect(processesMentioning(fixture.dir)).toEqual([]);
    });
  }
});
