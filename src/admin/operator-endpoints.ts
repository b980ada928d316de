/**
 * What a face (`serve`, `mcp --http`) hands the operator's requests to: the admin API
 * (`/admin/v1/…`), the console (`/console`) and the metrics (`/metrics`). One small hook in
 * each face: it passes `events` to the engine it builds, `attach`es the engine once built,
 * `observe`s each request (HTTP metrics), sends the paths this `serves` to `handle` after its
 * request guard and with the caller's token identity, and `close`s it after the engine.
 * Answers are `{ error: { code, message } }` on every face (the MCP face's own are JSON-RPC).
 *
 * Loaded only when used: the metrics SDK and its code when `metrics` is on (at start), the
 * console's files and their server on the first `/console` request.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { ServerConfig } from "../config/server-config.js";
import type { ToolSearchEngine } from "../engine/engine.js";
import { errorMessage, HttpError, type ErrorCode } from "../errors.js";
import { sendJson } from "../http/json-http.js";
import type { RequestGuard } from "../http/request-guard.js";
import type { McpServerSource } from "../mcp/index.js";
import type { SessionLogSink } from "../telemetry/types.js";
import { tenantOfToken } from "../auth/token-auth.js";
import { admitOperator, OperatorBudget, type FaceIdentity } from "./admin-access.js";
import { ADMIN_TENANT, adminRoute, type AdminContext } from "./admin-routes.js";
import { LiveTelemetry } from "./live-telemetry.js";
import type { MetricsSdk } from "../metrics/metrics-sdk.js";
import type { OperatorMetrics } from "../metrics/operator-metrics.js";
import { definedProps } from "../defined.js";

export type { FaceIdentity } from "./admin-access.js";

/** What only the face knows, handed over once its engine is built. */
export interface OperatorParts {
  engine: ToolSearchEngine;
  mcpSources: readonly McpServerSource[];
  sessions?: AdminContext["sessions"] | undefined;
}

/** The metrics, once loaded (metrics/): what records them and the SDK that exports them. */
interface LoadedMetrics {
  recorder: OperatorMetrics;
  sdk: MetricsSdk;
}

export class OperatorEndpoints {
  /** Every session event of the face's engine (EngineExtras.events). */
  readonly events: SessionLogSink;
  private readonly telemetry = new LiveTelemetry({ ignoreTenant: ADMIN_TENANT });
  private readonly budget = new OperatorBudget();
  private context: AdminContext | undefined;
  private console: Promise<ConsoleAssets> | undefined;

  private constructor(
    private readonly config: ServerConfig,
    private readonly face: "serve" | "mcp",
    private readonly metrics: LoadedMetrics | undefined,
  ) {
    const telemetry = this.telemetry;
    const recorder = metrics?.recorder;
    this.events =
      recorder === undefined
        ? telemetry
        : {
            write(event) {
              telemetry.write(event);
              recorder.write(event);
            },
          };
  }

  /** The endpoints of one face; with `metrics` on, the SDK is loaded first (a missing package is CONFIG_INVALID, before anything starts). */
  static async start(config: ServerConfig, face: "serve" | "mcp"): Promise<OperatorEndpoints> {
    if (!config.metrics.prometheus && !config.metrics.otlp) return new OperatorEndpoints(config, face, undefined);
    const [{ startMetricsSdk }, { OperatorMetrics }] = await Promise.all([import("../metrics/metrics-sdk.js"), import("../metrics/operator-metrics.js")]);
    const sdk = await startMetricsSdk(config.metrics);
    return new OperatorEndpoints(config, face, {
      sdk,
      recorder: new OperatorMetrics(sdk.meter, { ignoreTenant: ADMIN_TENANT, tenants: new Set((config.gateway.auth?.tokens ?? []).map(tenantOfToken)) }),
    });
  }

  /** Where OTLP metrics go (an origin), for the start summary; undefined when they do not. */
  get otlpEndpoint(): string | undefined {
    return this.metrics?.sdk.otlpEndpoint;
  }

  attach(parts: OperatorParts): void {
    const { sessions, ...rest } = parts;
    this.context = { face: this.face, config: this.config, telemetry: this.telemetry, ...rest, ...definedProps({ sessions }) };
    this.metrics?.recorder.observe({ ...rest, sessions });
  }

  /** HTTP metrics for one request of the face (any path), when metrics are on. */
  observe(req: IncomingMessage, res: ServerResponse): void {
    this.metrics?.recorder.observeRequest(req, res);
  }

  /** Whether `path` is the operator's: the admin API and the console unless `gateway.admin` is false, `/metrics` when `metrics.prometheus` is on. */
  serves(path: string): boolean {
    if (path === "/metrics") return this.metrics?.sdk.prometheus !== undefined;
    if (!this.config.gateway.admin) return false;
    return path === "/admin" || path.startsWith("/admin/") || path === "/console" || path.startsWith("/console/");
  }

  /** Answers one request of a path this serves; never rejects (errors are answered). */
  async handle(req: IncomingMessage, res: ServerResponse, identity: FaceIdentity, guard: RequestGuard): Promise<void> {
    const url = new URL(req.url ?? "/", "http://localhost");
    try {
      if (url.pathname === "/console" || url.pathname.startsWith("/console/")) return await this.serveConsole(req, res, url.pathname);
      const caller = admitOperator(req, identity, this.face === "serve" ? "gateway" : "server");
      const prometheus = this.metrics?.sdk.prometheus;
      if (url.pathname === "/metrics" && prometheus !== undefined) {
        if (req.method !== "GET" && req.method !== "HEAD") throw new HttpError("NOT_FOUND", `No route ${req.method} /metrics; scrape it with GET.`);
        return await this.budget.run(caller, () => prometheus(req, res));
      }
      const context = this.context;
      if (context === undefined) throw new HttpError("CLOSING", "The server is starting or stopping.");
      await this.budget.run(caller, () => adminRoute(req, res, url.pathname, url.searchParams, context, guard));
    } catch (error) {
      answerError(req, res, error, this.face);
    }
  }

  /** Pushes what OTLP has not sent and stops the metrics; after the engine is closed, so its last runs are in. */
  async close(): Promise<void> {
    await this.metrics?.sdk.shutdown();
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
