/**
 * Work the fault tests hold in flight until they say so: an MCP tool on a real SDK server (over
 * Streamable HTTP, in this process) and a model provider (the scripted one behind a proxy that
 * holds its requests), plus the CLI started as a real process and stopped with signals.
 */
import { type ChildProcess } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { createServer, request, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach } from "vitest";
import { startMockProvider, type MockProvider } from "../../src/mock-provider/mock-provider.js";
import { startCli, writeJson, type ServerProcess } from "../e2e/processes.js";
import { startHttpServer, type TestHttpServer } from "../mcp/helpers.js";

/** Calls that wait for `release()`; `started` resolves when the first one begins. */
export class Gate {
  readonly started: Promise<void>;
  calls = 0;
  cancelled = 0;
  #begin!: () => void;
  #open!: () => void;
  readonly #opened: Promise<void>;

  constructor() {
    this.started = new Promise((resolve) => (this.#begin = resolve));
    this.#opened = new Promise((resolve) => (this.#open = resolve));
  }

  /** Holds one call until release, or until `signal` aborts (then resolves false). */
  async hold(signal?: AbortSignal): Promise<boolean> {
    this.calls += 1;
    this.#begin();
    if (signal?.aborted) return false;
    const aborted = new Promise<false>((resolve) => signal?.addEventListener("abort", () => resolve(false), { once: true }));
    const released = await Promise.race([this.#opened.then(() => true as const), aborted]);
    if (!released) this.cancelled += 1;
    return released;
  }

  release(): void {
    this.#open();
  }
}

export const HELD_TOOL = "export_quarterly_sales_report";
export const HELD_REQUEST = "Export the quarterly sales report";

/** A real MCP server (SDK, Streamable HTTP) whose one tool waits at `gate`. */
export async function holdingMcpServer(gate: Gate): Promise<TestHttpServer> {
  return startHttpServer([
    {
      name: HELD_TOOL,
      description: "Export the quarterly sales report as a CSV file.",
      inputSchema: { type: "object", properties: {} },
      run: async (_args, signal) => {
        const released = await gate.hold(signal);
        return { content: [{ type: "text", text: released ? "report exported" : "cancelled" }] };
      },
    },
  ]);
}

/** The scripted provider behind a proxy that holds each model request at `gate` before forwarding it. */
export async function holdingProvider(gate: Gate): Promise<{ url: string; close(): Promise<void> }> {
  const provider: MockProvider = await startMockProvider({ port: 0 });
  const proxy: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      void gate.hold().then(() => {
        const upstream = request(`${provider.url}${req.url ?? "/"}`, { method: req.method, headers: req.headers }, (answer: IncomingMessage) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        });
        upstream.on("error", () => res.destroy());
        upstream.end(Buffer.concat(chunks));
      });
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/v1`,
    async close() {
      proxy.closeAllConnections();
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
      await provider.close();
    },
  };
}

/** Started processes and servers, stopped after each test of the file that calls this. */
export function cleanedAfterEach() {
  const cleanup: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const fn of cleanup.splice(0).reverse()) await fn().catch(() => {});
  });
  return {
    cleanup,
    /** `toolsearch <command> --config <written config> ...args`, stopped (SIGKILL if need be) after the test. */
    async cli(command: "serve" | "mcp", config: Record<string, unknown>, args: string[] = []): Promise<ServerProcess> {
      const file = writeJson(path.join(mkdtempSync(path.join(tmpdir(), "toolsearch-faults-")), "config.json5"), config);
      const server = await startCli([command, "--config", file, ...args]);
      cleanup.push(async () => {
        if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill("SIGKILL");
      });
      return server;
    },
  };
}

/** The exit code (or signal) of a child, once it exits. */
export function exited(child: ChildProcess): Promise<number | NodeJS.Signals> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  if (child.signalCode !== null) return Promise.resolve(child.signalCode);
  return new Promise((resolve) => child.once("exit", (code, signal) => resolve(code ?? signal!)));
}

/** Resolves once `check` holds (polled), or throws naming `what`. */
export async function until(check: () => boolean, what: string, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
