/**
 * Rows 6, 7 and 14 of issue 19 as real processes: a session answers a bounded number of
 * requests at once; a client that does not read is dropped (HTTP) or disconnected (stdio)
 * instead of making the server hold its answers; a hang-up (HTTP close, stdio EOF) cancels the
 * tool calls and code bodies it was waiting for, queued or running.
 */
import { spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CLI, startCli, type ServerProcess } from "../e2e/processes.js";
import { waitFor } from "../mcp/helpers.js";
import { faceFixture } from "./fixture.js";
import { nonReadingPost, openRawSession, post, streamPost, toolCall, type JsonRpcAnswer } from "./raw-mcp.js";

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A plugin whose tool writes a file: a code body calls it first, so the test knows the body is running. */
const PROBE = `import { writeFileSync } from "node:fs";
export default { id: "probe", tools: [
  { name: "note_started", description: "Write a marker file saying a body started.", inputSchema: { type: "object", properties: { file: { type: "string" } }, required: ["file"] },
    execute: (args) => { writeFileSync(args.file, "started"); return "noted"; } },
] };
`;

function fixtureWith(config: Record<string, unknown>): { dir: string; configFile: string; sessionLog: string } {
  const fixture = faceFixture({ mcpServers: {}, sessionLog: "./session.jsonl", ...config });
  writeFileSync(path.join(fixture.dir, "plugins", "probe.mjs"), PROBE);
  return { dir: fixture.dir, configFile: fixture.configFile, sessionLog: path.join(fixture.dir, "session.jsonl") };
}

async function startHttp(configFile: string): Promise<ServerProcess> {
  const server = await startCli(["mcp", "--config", configFile, "--http", "0"]);
  cleanups.push(() => server.stop());
  return server;
}

/** code_run events of the session log, by outcome code ("ok" for a body that returned). */
function codeRuns(sessionLog: string): string[] {
  if (!existsSync(sessionLog)) return [];
  return readFileSync(sessionLog, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { type: string; ok?: boolean; code?: string })
    .filter((event) => event.type === "code_run")
    .map((event) => (event.ok ? "ok" : (event.code ?? "?")));
}

/** A body that says it started, then spins until it is killed (codeTimeoutMs is 60 s here). */
function busyBody(dir: string, i: number): string {
  const file = JSON.stringify(path.join(dir, `started-${i}`));
  return `await openclaw.tools.call("plugin:probe:note_started", { file: ${file} }); while (true) {}`;
}

const started = (dir: string, n: number) => Array.from({ length: n }, (_, i) => existsSync(path.join(dir, `started-${i}`))).filter(Boolean).length;
const refusedCode = (answer: JsonRpcAnswer) => answer.error?.data?.code;

describe("mcp --http: requests in flight per session", () => {
  it(
    "answers maxInFlightPerSession at once: a batch's excess gets TOO_MANY_REQUESTS, a further POST 429, notifications still pass; a hang-up cancels the calls",
    { timeout: 60_000 },
    async () => {
      const { dir, configFile } = fixtureWith({ mcp: { agentId: "desk", maxInFlightPerSession: 2 } });
      const server = await startHttp(configFile);
      const session = await openRawSession(server.url);
      const markers = [1, 2].map((i) => path.join(dir, `cancelled-${i}.txt`));
      const batch = streamPost(session, [
        toolCall(1, "tool_call", { id: "plugin:acme:wait_for_cancel", args: { marker: markers[0] } }),
        toolCall(2, "tool_call", { id: "plugin:acme:wait_for_cancel", args: { marker: markers[1] } }),
        toolCall(3, "tool_call", { id: "plugin:acme:echo_text", args: { text: "third" } }),
      ]);
      await batch.until((answers) => answers.some((a) => a.id === 3), "the third call's answer");
      const third = batch.answers.find((a) => a.id === 3)!;
      expect(refusedCode(third)).toBe("TOO_MANY_REQUESTS");
      expect(third.error?.message).toContain("mcp.maxInFlightPerSession");

      const more = await post(session, { jsonrpc: "2.0", id: 4, method: "tools/list" });
      expect(more.status).toBe(429);
      expect(refusedCode(more.answers[0]!)).toBe("TOO_MANY_REQUESTS");
      const notification = await post(session, { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 99, reason: "none such" } });
      expect(notification.status).toBe(202);

      // The client hangs up: both calls it was waiting for see their AbortSignal fire, and the slots come back.
      expect(markers.some((m) => existsSync(m))).toBe(false);
      batch.request.destroy();
      await waitFor(() => markers.every((m) => existsSync(m)), "the hang-up to cancel both calls");
      // The slots come back as the cancelled calls return (right after their markers are written).
      let status = 0;
      for (let attempt = 0; attempt < 100 && status !== 200; attempt += 1) {
        if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 50));
        status = (await post(session, { jsonrpc: "2.0", id: 5 + attempt, method: "tools/list" })).status;
      }
      expect(status).toBe(200);
    },
  );
});

describe("mcp --http: a client that does not read", () => {
  it("is dropped once an answer finds more than mcp.maxUnreadBytes unread; the server keeps answering others (row 6)", { timeout: 60_000 }, async () => {
    const { configFile } = fixtureWith({
      tools: { toolSearch: { mode: "tools", maxResultBytes: 4 * 1024 * 1024 } },
      mcp: { agentId: "desk", maxUnreadBytes: 65_536 },
    });
    const server = await startHttp(configFile);
    const session = await openRawSession(server.url);
    // Four answers of 3 MiB each (big_blob) to a socket that is never read.
    const calls = [1, 2, 3, 4].map((id) => toolCall(id, "tool_call", { id: "plugin:acme:big_blob", args: {} }));
    const reader = await nonReadingPost(session, calls);
    cleanups.push(() => void reader.socket.destroy());
    await waitFor(
      () =>
        /dropped a connection from 127\.0\.0\.1 \(session [0-9a-f-]{36}\): \d+ bytes of answers unread, past mcp\.maxUnreadBytes \(65536\)/.test(
          server.stderr(),
        ) || undefined,
      "the drop in the server's log",
    );

    // The connection was reset before the answers were all out: the chunked body never ends.
    const received = await reader.drainToClose();
    expect(received.includes("\r\n0\r\n\r\n")).toBe(false);
    expect(received.length).toBeLessThan(4 * 3 * 1024 * 1024);

    // The server still answers: its health, a new session, and the same session on a new connection.
    expect((await fetch(new URL("/healthz", server.url))).status).toBe(200);
    const other = await openRawSession(server.url);
    const listed = await post(other, { jsonrpc: "2.0", id: 1, method: "tools/list" });
    expect(listed.status).toBe(200);
    expect(listed.answers[0]?.result?.tools).toHaveLength(3);
    const again = await post(session, toolCall(9, "tool_call", { id: "plugin:acme:echo_text", args: { text: "still here" } }));
    expect(again.answers[0]?.result?.content?.[0]?.text).toContain("still here");
  });
});

describe("mcp --http: a client that reads slowly", () => {
  it(
    "is paused: while its session holds half of mcp.maxUnreadBytes unread, its next POST waits; reading lets it through, nothing dropped",
    { timeout: 60_000 },
    async () => {
      const { configFile } = fixtureWith({
        tools: { toolSearch: { mode: "tools", maxResultBytes: 4 * 1024 * 1024 } },
        mcp: { agentId: "desk", maxUnreadBytes: 12 * 1024 * 1024 },
      });
      const server = await startCli(["mcp", "--config", configFile, "--http", "0", "--verbose"]);
      cleanups.push(() => server.stop());
      const session = await openRawSession(server.url);
      // Four answers of 3 MiB: each finds at most 9 MiB unread (under the 12 MiB cap) and goes out; the
      // kernel's buffers take at most a few MiB of the 12, leaving more than half the cap unread.
      const reader = await nonReadingPost(
        session,
        [1, 2, 3, 4].map((id) => toolCall(id, "tool_call", { id: "plugin:acme:big_blob", args: {} })),
      );
      cleanups.push(() => void reader.socket.destroy());
      await waitFor(() => (server.stderr().match(/mcp tools\/call tool_call ok/g) ?? []).length === 4 || undefined, "the four answers made");

      const next = streamPost(session, { jsonrpc: "2.0", id: 3, method: "tools/list" });
      await waitFor(
        () =>
          new RegExp(`mcp session ${session.sessionId} paused: \\d+ bytes of answers unread \\(mcp\\.maxUnreadBytes 12582912\\); this POST waits`).test(
            server.stderr(),
          ) || undefined,
        "the next POST to be paused",
      );
      expect(next.answers).toEqual([]);

      reader.socket.resume();
      await next.until((answers) => answers.some((a) => a.id === 3), "the paused POST's answer once the first is read");
      expect(next.answers.find((a) => a.id === 3)?.result?.tools).toHaveLength(3);
      // It let go once the client had read part of what it held; the rest still arrives whole.
      expect(reader.received()).toBeGreaterThan(0);
      await waitFor(() => reader.received() > 4 * 3 * 1024 * 1024 || undefined, "the four answers read to the end");
      expect(server.stderr()).not.toContain("dropped a connection");
    },
  );
});

describe("a hang-up cancels the code bodies it was waiting for (row 7)", () => {
  it(
    "HTTP: a batch of busy bodies, then the connection closes: every body, running or queued, is CANCELLED and the pool serves the next call",
    { timeout: 120_000 },
    async () => {
      const { dir, configFile, sessionLog } = fixtureWith({
        tools: { toolSearch: { mode: "code", codeTimeoutMs: 60_000 } },
        mcp: { agentId: "desk", maxInFlightPerSession: 6 },
      });
      const server = await startHttp(configFile);
      const session = await openRawSession(server.url);
      // Six bodies: the pool runs two (its default prefork) and queues four.
      const bodies = Array.from({ length: 6 }, (_, i) => toolCall(i + 1, "tool_search_code", { code: busyBody(dir, i) }));
      const batch = streamPost(session, bodies);
      await batch.started;
      // One session is one tenant of the pool: one body runs (maxRunningPerTenant), the rest queue.
      await waitFor(() => started(dir, 6) >= 1 || undefined, "a body running", 60_000);
      expect(codeRuns(sessionLog)).toEqual([]);

      batch.request.destroy();
      await waitFor(() => codeRuns(sessionLog).length === 6 || undefined, "every body to end", 60_000);
      expect(codeRuns(sessionLog)).toEqual(Array(6).fill("CANCELLED"));

      const next = await openRawSession(server.url);
      const answer = await post(next, toolCall(1, "tool_search_code", { code: "return 6 * 7;" }));
      expect(answer.answers[0]?.result?.isError).toBeFalsy();
      expect(answer.answers[0]?.result?.content?.[0]?.text).toContain("42");
    },
  );

  it("stdio: EOF on stdin cancels the running and queued bodies, and the process exits 0", { timeout: 120_000 }, async () => {
    const { dir, configFile, sessionLog } = fixtureWith({ tools: { toolSearch: { mode: "code", codeTimeoutMs: 60_000 } } });
    const child = stdioChild(configFile);
    await child.handshake();
    const bodies = Array.from({ length: 4 }, (_, i) => toolCall(i + 1, "tool_search_code", { code: busyBody(dir, i) }));
    child.send(bodies);
    await waitFor(() => started(dir, 4) >= 1 || undefined, "a body running", 60_000);
    child.process.stdin.end();
    expect(await child.exited).toBe(0);
    expect(codeRuns(sessionLog)).toEqual(Array(4).fill("CANCELLED"));
  });
});

describe("stdio: a client that does not read (row 14)", () => {
  it("is disconnected once an answer finds more than mcp.maxUnreadBytes unread on stdout: the reason on stderr, exit 1", { timeout: 60_000 }, async () => {
    const { configFile } = fixtureWith({
      tools: { toolSearch: { mode: "tools", maxResultBytes: 4 * 1024 * 1024 } },
      mcp: { agentId: "desk", maxUnreadBytes: 65_536 },
    });
    const child = stdioChild(configFile);
    await child.handshake();
    child.process.stdout.pause();
    child.send([1, 2, 3].map((id) => toolCall(id, "tool_call", { id: "plugin:acme:big_blob", args: {} })));
    expect(await child.exited).toBe(1);
    expect(child.stderr()).toMatch(
      /toolsearch mcp: the client has left \d+ bytes of answers unread on stdout, past mcp\.maxUnreadBytes \(65536\); disconnecting it/,
    );
  });
});

/** `toolsearch mcp` over stdio, spoken by hand: newline-delimited JSON-RPC. */
function stdioChild(configFile: string) {
  const child = spawn(process.execPath, [CLI, "mcp", "--config", configFile], { stdio: ["pipe", "pipe", "pipe"] });
  cleanups.push(() => void child.kill("SIGKILL"));
  let stderr = "";
  let stdout = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const send = (messages: unknown[]) => child.stdin.write(messages.map((m) => `${JSON.stringify(m)}\n`).join(""));
  return {
    process: child,
    exited,
    stderr: () => stderr,
    send,
    async handshake() {
      send([
        {
          jsonrpc: "2.0",
          id: "init",
          method: "initialize",
          params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
        },
      ]);
      await waitFor(() => stdout.includes('"id":"init"') || undefined, "the initialize answer", 60_000);
      send([{ jsonrpc: "2.0", method: "notifications/initialized" }]);
    },
  };
}
