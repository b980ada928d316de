/**
 * The two transports, behind one small handle: stdio (a child process the source owns and must
 * leave nothing of: stdio-transport.ts) and the official SDK's Streamable HTTP.
 */
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { stripControl } from "../text/prompt-text.js";
import { boundedMcpFetch, tooLargeAnswer } from "./message-limit.js";
import type { ResolvedMcpConfig, ResolvedMcpOptions } from "./options.js";
import { ProcessGroupStdioTransport, settledWithin } from "./stdio-transport.js";

/** How much of a child's stderr is kept for the message when it dies. */
const STDERR_TAIL_CHARS = 4_096;
/** How much of that tail enters a (model-facing) message. */
const STDERR_IN_MESSAGE_CHARS = 300;

export interface TransportHandle {
  readonly kind: "stdio" | "http";
  readonly transport: Transport;
  /** The child's pid once spawned (stdio), else undefined. */
  pid(): number | undefined;
  /** The child's last stderr line(s), bounded and control-free; "" when none or not captured. */
  stderrTail(): string;
  /** Resolves when the transport has reported close (for stdio: the child is gone). */
  readonly closed: Promise<void>;
  /**
   * Closes the transport; for stdio, gently, the server's whole process group: stdin closed, then
   * SIGTERM after `killGraceMs`, then SIGKILL after `termGraceMs` (stdio-transport.ts).
   */
  shutdown(): Promise<void>;
}

export function createTransport(config: ResolvedMcpConfig, options: ResolvedMcpOptions): TransportHandle {
  return config.kind === "stdio" ? stdioHandle(config, options) : httpHandle(config, options);
}

function stdioHandle(config: Extract<ResolvedMcpConfig, { kind: "stdio" }>, options: ResolvedMcpOptions): TransportHandle {
  const transport = new ProcessGroupStdioTransport({
    command: config.command,
    args: config.args,
    ...(config.env ? { env: config.env } : {}),
    ...(config.cwd ? { cwd: config.cwd } : {}),
    stderr: options.stderr === "capture" ? "pipe" : options.stderr,
    maxMessageBytes: options.maxMessageBytes,
  });
  let tail = "";
  // Read it always when piped: an unread pipe fills and blocks the child.
  transport.stderr?.on("data", (chunk: Buffer | string) => {
    tail = (tail + chunk.toString()).slice(-STDERR_TAIL_CHARS);
  });
  return {
    kind: "stdio",
    transport,
    pid: () => transport.pid,
    stderrTail: () => lastLines(tail),
    closed: transport.exited,
    shutdown: () => transport.stop({ killGraceMs: options.killGraceMs, termGraceMs: options.termGraceMs }),
  };
}

function httpHandle(config: Extract<ResolvedMcpConfig, { kind: "http" }>, options: ResolvedMcpOptions): TransportHandle {
  const limit = options.maxMessageBytes;
  // An answer dropped for its size fails its request now: the client gets an error in its place.
  const dropped = (ids: readonly (string | number)[]) => {
    for (const id of ids) transport.onmessage?.(tooLargeAnswer(id, limit));
  };
  const transport: StreamableHTTPClientTransport = new StreamableHTTPClientTransport(config.url, {
    requestInit: { headers: { ...config.headers } },
    fetch: boundedMcpFetch(limit, dropped),
  });
  const { closed, markClosed } = closedSignal();
  chainOnClose(transport, markClosed);
  return {
    kind: "http",
    transport,
    pid: () => undefined,
    stderrTail: () => "",
    closed,
    async shutdown() {
      // Best effort: tell the server the session is over, briefly; then stop every stream.
      if (transport.sessionId !== undefined)
        await settledWithin(
          transport.terminateSession().catch(() => {}),
          1_000,
        );
      await transport.close().catch(() => {});
    },
  };
}

/** The Protocol wraps whatever onclose the transport had when connecting; ours runs first. */
function chainOnClose(transport: Transport, listener: () => void): void {
  const previous = transport.onclose;
  transport.onclose = () => {
    listener();
    previous?.();
  };
}

function closedSignal(): { closed: Promise<void>; markClosed: () => void } {
  let markClosed: () => void = () => {};
  const closed = new Promise<void>((resolve) => (markClosed = resolve));
  return { closed, markClosed };
}

/** Lines of a crash report that never say why: stack frames, Node's version trailer, braces, the caret under a source line. */
const NOISE = /^(at\s|Node\.js v\d|[{}]$|\^+$)/;

/** The last stderr lines that say something, newest last, joined with " | " and bounded. */
function lastLines(text: string): string {
  const all = stripControl(text)
    .split("\n")
    .map((line) => line.trim());
  // A caret line marks the line above it as an echo of source code; a file:line header precedes that.
  const lines = all.filter(
    (line, i) => line && !NOISE.test(line) && !/^\^+$/.test(all[i + 1] ?? "") && !/^\^+$/.test(all[i + 2] ?? "") && !/^node:internal\//.test(line),
  );
  let out = "";
  for (let i = lines.length - 1; i >= 0; i -= 1) {
    const next = out ? `${lines[i]} | ${out}` : lines[i]!;
    if (next.length > STDERR_IN_MESSAGE_CHARS) {
      if (!out) out = `…${next.slice(-(STDERR_IN_MESSAGE_CHARS - 1))}`;
      break;
    }
    out = next;
  }
  return out;
}
