/**
 * Opening one session of `toolsearch mcp`, stdio or HTTP: its engine run (face-session.ts), its
 * budget of requests in flight, and the SDK server that answers its tools/list and tools/call,
 * each request in a slot of that budget and under the face's drain (face-drain.ts). The session
 * joins the face's open ones (face-sessions.ts) as soon as it exists.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolRequest, type CallToolResult, type Tool } from "@modelcontextprotocol/sdk/types.js";
import type { TokenIdentity } from "../auth/token-auth.js";
import type { TenantTurns } from "../dispatch/fair-turns.js";
import type { ToolSearchEngine } from "../engine/engine.js";
import type { RunContext } from "../engine/options.js";
import { packageVersion } from "../version.js";
import { RequestBudget } from "./answer-flow.js";
import type { FaceDrain } from "./face-drain.js";
import { FaceSession, type ServerReason } from "./face-session.js";
import type { FaceSessions, LiveSession } from "./face-sessions.js";
import type { SessionTenantKey } from "./tenant-shares.js";

/** What an HTTP session carries beside its run: who opened it, whose share it counts against, its turns. */
export interface HttpSessionParts {
  identity: TokenIdentity | null;
  tenant: SessionTenantKey;
  turns: TenantTurns;
}

/** Where a request lands in the SDK's handlers: the client's cancel of it. */
interface RequestExtra {
  signal: AbortSignal;
}

export class SessionOpener {
  constructor(
    private readonly engine: ToolSearchEngine,
    private readonly sessions: FaceSessions,
    private readonly drain: FaceDrain,
    private readonly serverReason: ServerReason,
    private readonly maxInFlightPerSession: number,
    /** One line per MCP request (`--verbose`), already escaped. */
    private readonly log: ((line: string) => void) | undefined,
  ) {}

  /** A session running as `context`, open and counted from now on; `label` names it in the log. */
  async open(context: RunContext, label: string, http?: HttpSessionParts): Promise<LiveSession> {
    const session = await FaceSession.open(this.engine, context, this.serverReason);
    const budget = new RequestBudget(this.maxInFlightPerSession);
    const entry: LiveSession = { session, budget, server: this.#server(session, budget, label), ...(http ?? {}) };
    this.sessions.add(entry);
    return entry;
  }

  #server(session: FaceSession, budget: RequestBudget, label: string): Server {
    const server = new Server(
      { name: "toolsearch", version: packageVersion() },
      { capabilities: { tools: { listChanged: true } }, ...(session.instructions ? { instructions: session.instructions } : {}) },
    );
    server.setRequestHandler(ListToolsRequestSchema, (_request, extra) => budget.run(() => this.#listTools(session, label, extra)));
    server.setRequestHandler(CallToolRequestSchema, (request, extra) => budget.run(() => this.#callTool(session, label, request, extra)));
    return server;
  }

  #listTools(session: FaceSession, label: string, extra: RequestExtra): Promise<{ tools: Tool[] }> {
    return this.drain.run(async () => {
      const started = performance.now();
      const tools = await session.listTools();
      this.log?.(`mcp tools/list ${tools.length} tools ${ms(started)} session=${label}`);
      return { tools };
    }, extra.signal);
  }

  #callTool(session: FaceSession, label: string, request: CallToolRequest, extra: RequestExtra): Promise<CallToolResult> {
    return this.drain.run(async (signal) => {
      const started = performance.now();
      const result = await session.callTool(request.params.name, request.params.arguments, signal);
      this.log?.(`mcp tools/call ${request.params.name.slice(0, 128)} ${result.isError ? "error" : "ok"} ${ms(started)} session=${label}`);
      return result;
    }, extra.signal);
  }
}

function ms(started: number): string {
  return `${Math.round(performance.now() - started)}ms`;
}
