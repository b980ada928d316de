/**
 * One MCP session of `toolsearch mcp`: one engine run at a time, prepared with the identity the
 * config gives (never the client's), answering `tools/list` and `tools/call` on that run's surface.
 *
 * When the catalog changes (a downstream server's list changed, it went away or came back) the
 * session is marked stale and its client is told (`notifications/tools/list_changed`); the next
 * request prepares a fresh run, and the old one ends once its calls in flight have finished.
 * A tool this session was shown whose server has since gone away answers TOOL_UNAVAILABLE (with
 * the server's reason), not TOOL_NOT_FOUND: only ids and names this session saw are mapped, so
 * a tool the policy hides stays as unknown as one that never existed.
 */
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import type { ToolSearchEngine } from "../engine/engine.js";
import type { RunContext } from "../engine/options.js";
import type { ToolCallAnswer, ToolSearchRun } from "../engine/run.js";
import { EngineClosedError, ToolUnavailableError } from "../errors.js";
import { TOOL_CALL } from "../surfaces/control-tools.js";
import { errorResult, toToolMessage } from "../surfaces/surface.js";
import { LruMap } from "../validation/lru.js";

/** Says why an MCP server is not serving (undefined while it is), by its configured name. */
export type ServerReason = (server: string) => string | undefined;

/** Names and ids shown to one session that have since left its catalog; bounded. */
const MAX_VANISHED = 20_000;

export class FaceSession {
  private run: ToolSearchRun;
  private stale = false;
  private refreshing: Promise<ToolSearchRun> | undefined;
  private readonly inFlight = new Map<ToolSearchRun, number>();
  /** Call names (direct) and ids (tool_call) this session was shown, whose tools left its catalog → tool id. */
  private readonly vanished = new LruMap<string, string>(MAX_VANISHED);
  private closed = false;

  private constructor(
    private readonly engine: ToolSearchEngine,
    private readonly context: RunContext,
    first: ToolSearchRun,
    private readonly serverReason: ServerReason,
  ) {
    this.run = first;
  }

  static async open(engine: ToolSearchEngine, context: RunContext, serverReason: ServerReason): Promise<FaceSession> {
    return new FaceSession(engine, context, await engine.prepareRun(context), serverReason);
  }

  /** The instructions of the first run (MCP sends them once, at initialize). */
  get instructions(): string {
    return this.run.instructions;
  }

  get mode(): ToolSearchRun["mode"] {
    return this.run.mode;
  }

  /** The catalog changed: the next request gets a fresh run. */
  markStale(): void {
    this.stale = true;
  }

  async listTools(): Promise<Tool[]> {
    const run = await this.current();
    return run.tools.map((tool) => ({
      name: tool.function.name,
      description: tool.function.description,
      inputSchema: tool.function.parameters as Tool["inputSchema"],
    }));
  }

  /** `signal`: the client's cancel of this request (`notifications/cancelled`, or the HTTP request closed). */
  async callTool(name: string, args: Record<string, unknown> | undefined, signal?: AbortSignal): Promise<CallToolResult> {
    const run = await this.current();
    this.inFlight.set(run, (this.inFlight.get(run) ?? 0) + 1);
    let answer: ToolCallAnswer;
    try {
      answer = await run.answerToolCall({ name, arguments: args ?? {} }, signal);
    } finally {
      const left = (this.inFlight.get(run) ?? 1) - 1;
      if (left > 0) this.inFlight.set(run, left);
      else {
        this.inFlight.delete(run);
        if (run !== this.run) await run.end();
      }
    }
    if (answer.error?.code === "TOOL_NOT_FOUND") answer = this.unavailableInstead(name, args, answer);
    return {
      content: [{ type: "text", text: answer.text }],
      ...(answer.error ? { isError: true } : {}),
    };
  }

  /** A tool this session was shown, whose server is now down: TOOL_UNAVAILABLE with the reason. */
  private unavailableInstead(name: string, args: Record<string, unknown> | undefined, answer: ToolCallAnswer): ToolCallAnswer {
    const key = name === TOOL_CALL ? (typeof args?.id === "string" ? args.id : undefined) : name;
    const id = key === undefined ? undefined : this.vanished.peek(key);
    const server = id?.startsWith("mcp:") ? id.slice(4, id.indexOf(":", 4)) : undefined;
    const reason = server ? this.serverReason(server) : undefined;
    if (id === undefined || reason === undefined) return answer;
    const payload = errorResult(new ToolUnavailableError(id, reason));
    return { text: toToolMessage(name === TOOL_CALL ? { ...payload, id } : payload), error: payload.error, truncated: false };
  }

  private async current(): Promise<ToolSearchRun> {
    if (this.closed) throw new EngineClosedError("The MCP session is closed.");
    if (!this.stale) return this.run;
    this.refreshing ??= this.refresh().finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  private async refresh(): Promise<ToolSearchRun> {
    this.stale = false;
    const next = await this.engine.prepareRun(this.context);
    const previous = this.run;
    this.remember(previous, next);
    this.run = next;
    if (!this.inFlight.has(previous)) await previous.end();
    if (this.closed) await next.end();
    return next;
  }

  /** What `previous` showed and `next` lacks is remembered; what `next` shows again is forgotten. */
  private remember(previous: ToolSearchRun, next: ToolSearchRun): void {
    const nextDeclared = next.declaredTools();
    const nextIds = next.visibleToolIds();
    for (const [name, id] of previous.declaredTools()) if (!nextDeclared.has(name)) this.vanished.set(name, id);
    for (const id of previous.visibleToolIds()) if (!nextIds.has(id)) this.vanished.set(id, id);
    for (const key of [...this.vanished.keys()]) if (nextDeclared.has(key) || nextIds.has(key)) this.vanished.delete(key);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.run.end();
    await Promise.allSettled([...this.inFlight.keys()].map((run) => run.end()));
  }
}
