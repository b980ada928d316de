/**
 * Row 6 of issue 19: clients of `toolsearch mcp --http` that send a batch of calls to a tool
 * answering 1 MiB and never read. What does the server hold, and does it still answer?
 *
 *   npm run build && node dist/bench/mcp-face/nonreader.js [--cli dist/src/cli/main.js] [--connections 8] [--batch 100] [--bytes 1048576] [--seconds 15]
 *
 * Starts `<cli> mcp --http 0` (its own process, tools mode, no auth) over a plugin whose tool
 * answers --bytes of text; opens --connections sessions, and on each a raw socket POSTs one batch
 * of --batch `tools/call` of that tool, then stops reading. For --seconds the server's RSS
 * (/proc/<pid>/status VmRSS) is sampled every 100 ms and `GET /healthz` timed every 500 ms.
 * Printed as one JSON object: RSS at start, peak and end (MB), /healthz p50 and max (ms), and
 * how many connections the server dropped (its "dropped a connection" lines). --cli lets the
 * same script measure another build (e.g. the commit before, built elsewhere).
 */
import { spawn } from "node:child_process";
import { request, type IncomingHttpHeaders } from "node:http";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { flagValue } from "../harness/args.js";

const args = process.argv.slice(2);
const KNOWN = ["--cli", "--connections", "--batch", "--bytes", "--seconds"];
function option(name: string): string | undefined {
  const at = args.indexOf(name);
  return at < 0 ? undefined : flagValue(args, at + 1, name);
}
for (const arg of args) if (arg.startsWith("--") && !KNOWN.includes(arg)) throw new Error(`unknown option ${arg}; known: ${KNOWN.join(" ")}`);
function number(name: string, fallback: number): number {
  const value = Number(option(name) ?? fallback);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} needs a whole number above 0`);
  return value;
}
const cli = path.resolve(option("--cli") ?? "dist/src/cli/main.js");
const connections = number("--connections", 8);
const batch = number("--batch", 100);
const bytes = number("--bytes", 1024 * 1024);
const seconds = number("--seconds", 15);

const HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-06-18" };

function configFolder(): string {
  const dir = mkdtempSync(path.join(tmpdir(), "toolsearch-nonreader-"));
  mkdirSync(path.join(dir, "plugins"));
  writeFileSync(
    path.join(dir, "plugins", "blob.mjs"),
    `export default { id: "blob", tools: [{ name: "big_answer", description: "Answer a big blob of text.", inputSchema: { type: "object", properties: {} }, execute: () => "x".repeat(${bytes}) }] };\n`,
  );
  writeFileSync(path.join(dir, "toolsearch.config.json5"), JSON.stringify({ tools: { toolSearch: { mode: "tools" } }, plugins: ["./plugins"] }));
  return dir;
}

async function startServer(dir: string): Promise<{ url: string; pid: number; stderr: () => string; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, [cli, "mcp", "--config", path.join(dir, "toolsearch.config.json5"), "--http", "0"], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    let stdout = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = /listening (\S+)/.exec(stdout);
      if (match) resolve(match[1]!);
    });
    child.once("exit", (code) => reject(new Error(`the server exited (${code}): ${stderr}`)));
  });
  return {
    url,
    pid: child.pid!,
    stderr: () => stderr,
    async stop() {
      child.kill("SIGTERM");
      const killer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(killer);
    },
  };
}

/** One request on a connection of its own (a pooled keep-alive one may be closed under us while the server is busy). */
function call(
  url: string,
  method: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<{ status: number; headers: IncomingHttpHeaders; text: string }> {
  const text = body === undefined ? "" : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(url, { method, agent: false, headers: { ...headers, "content-length": Buffer.byteLength(text) } }, (res) => {
      let answer = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (answer += chunk));
      res.once("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: answer }));
      res.once("error", reject);
    });
    req.once("error", reject);
    req.end(text);
  });
}

async function openSession(url: string): Promise<string> {
  const init = {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "bench", version: "1" } },
  };
  const response = await call(url, "POST", HEADERS, init);
  const sessionId = response.headers["mcp-session-id"];
  if (typeof sessionId !== "string") throw new Error(`initialize answered ${response.status}: ${response.text}`);
  await call(url, "POST", { ...HEADERS, "mcp-session-id": sessionId }, { jsonrpc: "2.0", method: "notifications/initialized" });
  return sessionId;
}

/** One batch POSTed on a raw socket that is then never read. */
function nonReadingBatch(url: string, sessionId: string): Promise<Socket> {
  const target = new URL(url);
  const calls = Array.from({ length: batch }, (_, i) => ({
    jsonrpc: "2.0",
    id: i + 1,
    method: "tools/call",
    params: { name: "tool_call", arguments: { id: "plugin:blob:big_answer", args: {} } },
  }));
  const body = JSON.stringify(calls);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(target.port), target.hostname, () => {
      const head = [
        `POST ${target.pathname} HTTP/1.1`,
        `host: ${target.host}`,
        `content-length: ${Buffer.byteLength(body)}`,
        `mcp-session-id: ${sessionId}`,
        ...Object.entries(HEADERS).map(([k, v]) => `${k}: ${v}`),
      ];
      socket.write(`${head.join("\r\n")}\r\n\r\n${body}`);
      socket.pause();
      socket.on("error", () => {});
      resolve(socket);
    });
    socket.once("error", reject);
  });
}

function rssMb(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return match ? Math.round(Number(match[1]) / 1024) : Number.NaN;
}

async function healthzMs(url: string): Promise<number> {
  const started = performance.now();
  await call(new URL("/healthz", url).href, "GET", {});
  return performance.now() - started;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function main(): Promise<void> {
  const dir = configFolder();
  const server = await startServer(dir);
  const sockets: Socket[] = [];
  try {
    // One call answered and read first, so the baseline includes a warmed-up server.
    const warm = await openSession(server.url);
    await call(server.url, "POST", { ...HEADERS, "mcp-session-id": warm }, { jsonrpc: "2.0", id: 1, method: "tools/list" });
    await call(server.url, "DELETE", { ...HEADERS, "mcp-session-id": warm });
    await sleep(500);
    const startRss = rssMb(server.pid);
    for (let i = 0; i < connections; i += 1) sockets.push(await nonReadingBatch(server.url, await openSession(server.url)));
    let peakRss = startRss;
    const health: number[] = [];
    const sampler = setInterval(() => (peakRss = Math.max(peakRss, rssMb(server.pid))), 100);
    const deadline = Date.now() + seconds * 1000;
    while (Date.now() < deadline) {
      health.push(await healthzMs(server.url));
      await sleep(500);
    }
    clearInterval(sampler);
    const endRss = rssMb(server.pid);
    health.sort((a, b) => a - b);
    const result = {
      cli,
      connections,
      batch,
      bytes,
      seconds,
      rssMb: { start: startRss, peak: peakRss, end: endRss },
      healthzMs: { p50: Math.round(health[Math.floor(health.length / 2)]!), max: Math.round(health.at(-1)!) },
      dropped: (server.stderr().match(/dropped a connection/g) ?? []).length,
    };
    console.log(JSON.stringify(result));
  } catch (error) {
    console.error(`server stderr:\n${server.stderr().slice(-4000)}`);
    throw error;
  } finally {
    for (const socket of sockets) socket.destroy();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
