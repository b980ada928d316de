/**
 * What a face (`serve`, `mcp --http`) hands the operator's requests to: the admin API
 * (`/admin/v1/…`), and the console (`/console`). One small hook in each face: it passes
 * `events` to the engine it builds, `attach`es the engine once built, and sends the paths this
 * `serves` to `handle`, after its request guard and with the caller's token identity. Answers
 * are `{ error: { code, message } }` on every face (the MCP face's own errors are JSON-RPC).
 *
 * The console's code (static files and their server) is loaded on the first `/console` request.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { GatewayConfig } from "../config/server-config.js";
import type { ToolSearchEngine } from "../engine/engine.js";
import { errorMessage, HttpError, type ErrorCode } from "../errors.js";
import { sendJson } from "../http/json-http.js";
import type { RequestGuard } from "../http/request-guard.js";
import type { McpServerSource } from "../mcp/index.js";
import type { SessionLogSink } from "../telemetry/types.js";
import { admitOperator, OperatorBudget, type FaceIdentity } from "./admin-access.js";
import { ADMIN_TENANT, adminRoute, type AdminContext } from "./admin-routes.js";
import { LiveTelemetry } from "./live-telemetry.js";

export type { FaceIdentity } from "./admin-access.js";

/** What only the face knows, handed over once its engine is built. */
export interface OperatorParts {
  engine: ToolSearchEngine;
  mcpSources: readonly McpServerSource[];
  sessions?: AdminContext["sessions"] | undefined;
}

export class OperatorEndpoints {
  /** Every session event of the face's engine (EngineExtras.events). */
  readonly events: SessionLogSink;
  private readonly telemetry = new LiveTelemetry({ ignoreTenant: ADMIN_TENANT });
  private readonly budget = new OperatorBudget();
  private context: AdminContext | undefined;
  private console: Promise<ConsoleAssets> | undefined;

  constructor(
    private readonly config: GatewayConfig,
    private readonly face: "serve" | "mcp",
  ) {
    this.events = this.telemetry;
  }

  attach(parts: OperatorParts): void {
    const { sessions, ...rest } = parts;
    this.context = { face: this.face, config: this.config, telemetry: this.telemetry, ...rest, ...(sessions !== undefined ? { sessions } : {}) };
  }

  /** Whether `path` is the operator's: the admin API and the console, unless `gateway.admin` is false. */
  serves(path: string): boolean {
    if (!this.config.gateway.admin) return false;
    return path === "/admin" || path.startsWith("/admin/") || path === "/console" || path.startsWith("/console/");
  }

  /** Answers one request of a path this serves; never rejects (errors are answered). */
  async handle(req: IncomingMessage, res: ServerResponse, identity: FaceIdentity, guard: RequestGuard): Promise<void> {
    const url = new URL(req.url ?? "/", "http://localhost");
    try {
      if (url.pathname === "/console" || url.pathname.startsWith("/console/")) return await this.serveConsole(req, res, url.pathname);
      const caller = admitOperator(req, identity, this.face === "serve" ? "gateway" : "server");
      const context = this.context;
      if (context === undefined) throw new HttpError("CLOSING", "The server is starting or stopping.");
      await this.budget.run(caller, () => adminRoute(req, res, url.pathname, url.searchParams, context, guard));
    } catch (error) {
      answerError(req, res, error, this.face);
    }
  }

  private async serveConsole(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    this.console ??= import("../console/console-assets.js").then((m) => m.loadConsoleAssets());
    (await this.console).serve(req, res, path);
  }
}

/** The console's static files (console/console-assets.ts), as the endpoints use them. */
interface ConsoleAssets {
  serve(req: IncomingMessage, res: ServerResponse, path: string): void;
}

function answerError(req: IncomingMessage, res: ServerResponse, error: unknown, face: "serve" | "mcp"): void {
  if (error instanceof HttpError)
    return sendJson(res, error.status, { error: { code: error.code, message: error.message } }, { ...error.headers, "cache-control": "no-store" });
  // The detail may hold paths or secrets: the operator's stderr has it, the caller gets INTERNAL.
  console.error(
    `toolsearch ${face}: internal error on ${req.method} ${(req.url ?? "").slice(0, 200)}: ${errorMessage(error).replace(/\s+/g, " ").slice(0, 500)}`,
  );
  sendJson(res, 500, { error: { code: "INTERNAL" satisfies ErrorCode, message: "internal error" } });
}
