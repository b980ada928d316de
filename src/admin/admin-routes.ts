/**
 * The admin API, `/admin/v1/…` on both faces (`serve`, `mcp --http`): JSON for an operator —
 * the catalog by source and its state, the tools a given identity sees, search and explain as
 * that identity, live telemetry, tenants and their shares, the sandbox, MCP servers, learning.
 * Access and budgets are the caller's (admin-access.ts); here every list is paged (`offset`,
 * `limit` with a maximum), every text bounded, and every input validated with a 400 that says
 * what was wrong. Versioned: a change that breaks a field comes as /admin/v2.
 */
import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { ToolSource } from "../catalog/types.js";
import type { ServerConfig } from "../config/server-config.js";
import type { ToolSearchEngine } from "../engine/engine.js";
import { ConfigInvalidError, errorMessage, HttpError } from "../errors.js";
import { identityFromToken, tenantOfToken, TENANT_NAME_PATTERN, type TokenIdentity } from "../auth/token-auth.js";
import { sendJson } from "../http/json-http.js";
import type { RequestGuard } from "../http/request-guard.js";
import type { McpServerSource } from "../mcp/index.js";
import { TOOL_SEARCH_MODES, type ToolSearchMode } from "../settings/tool-search-config.js";
import { escapeControl } from "../text/prompt-text.js";
import { compileOptions } from "../validation/ajv.js";
import { boolean, int, object, oneOf, string, withDefault, type Filled, type TypeOf } from "../validation/typed-schema.js";
import { MAX_QUERY_CHARS } from "../validation/search-args.js";
import { packageVersion } from "../version.js";
import type {
  AdminIndex,
  AdminRoute,
  AdminRunIdentity,
  CatalogAnswer,
  LearningAnswer,
  SandboxAnswer,
  SearchAnswer,
  ServersAnswer,
  TelemetryAnswer,
  TenantRow,
  TenantsAnswer,
  ToolsAnswer,
  WordsAnswer,
} from "./admin-wire-types.js";
import { learnedWords, wordsKept } from "./learned-words.js";
import type { LiveTelemetry } from "./live-telemetry.js";
import { definedProps } from "../defined.js";

/** The tenant of the admin API's own runs (search and explain as an identity): kept out of live telemetry and metrics. */
export const ADMIN_TENANT = "toolsearch:admin";
/** Error text (an MCP server's reason, its stderr tail) is cut to this. */
const MAX_ERROR_CHARS = 1_000;
/** A search body is a request and an identity: this is plenty. */
const MAX_SEARCH_BODY_BYTES = 16 * 1024;

/** What the admin API reads: the face's engine and sources, its live telemetry, and what only the face knows (its sessions). */
export interface AdminContext {
  face: "serve" | "mcp";
  config: ServerConfig;
  engine: ToolSearchEngine;
  mcpSources: readonly McpServerSource[];
  telemetry: LiveTelemetry;
  /** Open sessions, with the tenant each belongs to and its requests in flight (`mcp --http`; `serve` keeps none). */
  sessions?: () => Array<{ tenant: string; inFlight: number }>;
}

const text = string({ minLength: 1, maxLength: 256 });

/** Who to search or list as: a run's identity fields, or `token: <tenant>` (a token's tenant, GET /admin/v1) for what that token's runs see. */
const identitySchema = object({
  agentId: text,
  profile: text,
  channel: text,
  owner: boolean(),
  /** A token's tenant (GET /admin/v1 lists them): as that token's runs, narrowed by the other fields. */
  token: string({ pattern: `${TENANT_NAME_PATTERN}|^token:[A-Za-z0-9_-]{16}$` }),
});

/** Who to search or list as (identitySchema). */
export type AdminIdentity = TypeOf<typeof identitySchema>;

/** `POST /admin/v1/search`: a request, searched or explained as an identity. */
const searchSchema = object(
  {
    /** What to search for, as a model would ask. */
    request: string({ minLength: 1, maxLength: MAX_QUERY_CHARS }),
    /** Hits to return (default: the engine's search limit). */
    limit: int(1, 50),
    /** With each hit, the ranking steps that placed it (run.explain's `detail`; default true). */
    detail: withDefault(boolean(), true),
    /** The mode to search in, as a run body's `mode` (a token's modes bound it). */
    mode: oneOf(TOOL_SEARCH_MODES),
    /** Who to search as; absent, as a run that names no identity. */
    identity: identitySchema,
  },
  { required: ["request"] },
);

const checkIdentity = compileOptions("adminIdentity", identitySchema, { copy: false });
const checkSearch = compileOptions("adminSearch", searchSchema, { copy: false });

function badRequest(error: unknown): HttpError {
  return new HttpError("BAD_REQUEST", errorMessage(error));
}

/** A page of a list: `offset` and `limit` from the query, `limit` at most `max`. */
function pageOf<T>(items: readonly T[], query: URLSearchParams, fallback = 100, max = 500): { total: number; offset: number; limit: number; items: T[] } {
  const offset = intParam(query, "offset", 0, 1_000_000_000, 0);
  const limit = intParam(query, "limit", 1, max, fallback);
  return { total: items.length, offset, limit, items: items.slice(offset, offset + limit) };
}

function intParam(query: URLSearchParams, name: string, min: number, max: number, fallback: number): number {
  const raw = query.get(name);
  if (raw === null) return fallback;
  const n = Number(raw);
  if (raw.trim() === "" || !Number.isInteger(n) || n < min || n > max)
    throw new HttpError("BAD_REQUEST", `${name} must be an integer from ${min} to ${max}; got ${JSON.stringify(raw.slice(0, 40))}`);
  return n;
}

function textParam(query: URLSearchParams, name: string): string | undefined {
  const raw = query.get(name);
  if (raw === null) return undefined;
  if (raw.length === 0 || raw.length > 256) throw new HttpError("BAD_REQUEST", `${name} must be 1 to 256 characters`);
  return raw;
}

const clipError = (message: string): string => escapeControl(message.replace(/\s+/g, " ").trim()).slice(0, MAX_ERROR_CHARS);

/** Routes one request under /admin/v1; throws HttpError for the caller to answer. */
export async function adminRoute(
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  query: URLSearchParams,
  ctx: AdminContext,
  guard: RequestGuard,
): Promise<void> {
  const route = path.replace(/\/+$/, "");
  const get = req.method === "GET" || req.method === "HEAD";
  if (route === "/admin/v1" && get) return send(res, index(ctx));
  if (route === "/admin/v1/catalog" && get) return send(res, catalog(ctx, query));
  if (route === "/admin/v1/tools" && get) return send(res, tools(ctx, query));
  if (route === "/admin/v1/search" && req.method === "POST")
    return send(res, await search(ctx, await guard.readJson(req, MAX_SEARCH_BODY_BYTES, "BAD_REQUEST")));
  if (route === "/admin/v1/telemetry" && get) return send(res, telemetry(ctx, query));
  if (route === "/admin/v1/tenants" && get) return send(res, await tenants(ctx, query));
  if (route === "/admin/v1/sandbox" && get) return send(res, await sandbox(ctx));
  if (route === "/admin/v1/mcp-servers" && get) return send(res, mcpServers(ctx, query));
  if (route === "/admin/v1/learning" && get) return send(res, learning(ctx, query));
  if (route === "/admin/v1/learning/words" && get) return send(res, words(ctx, query));
  const known = ROUTES.map((r) => `${r.method} ${r.path}`).join(", ");
  throw new HttpError("NOT_FOUND", `No admin route ${req.method} ${route.slice(0, 200)}; the routes are ${known}.`);
}

/** Every answer is one of the wire types the console reads (admin-wire-types.ts). */
type AdminAnswer =
  AdminIndex | CatalogAnswer | ToolsAnswer | SearchAnswer | TelemetryAnswer | TenantsAnswer | SandboxAnswer | ServersAnswer | LearningAnswer | WordsAnswer;

function send(res: ServerResponse, body: AdminAnswer): void {
  sendJson(res, 200, body, { "cache-control": "no-store" });
}

const ROUTES: AdminRoute[] = [
  { method: "GET", path: "/admin/v1", what: "this index" },
  { method: "GET", path: "/admin/v1/catalog", what: "the catalog by source: state, tool count, why a source is down (offset, limit)" },
  { method: "GET", path: "/admin/v1/tools", what: "tools, as an identity sees them (source, toolset, agentId, profile, channel, owner, token, offset, limit)" },
  { method: "POST", path: "/admin/v1/search", what: "{ request, limit?, detail?, mode?, identity? }: the hits and why, as that identity" },
  { method: "GET", path: "/admin/v1/telemetry", what: "totals and ten-second buckets since start (window: buckets)" },
  { method: "GET", path: "/admin/v1/tenants", what: "tenants: runs, calls, sessions, code bodies running and queued (offset, limit)" },
  { method: "GET", path: "/admin/v1/sandbox", what: "the code sandbox's layers and load" },
  { method: "GET", path: "/admin/v1/mcp-servers", what: "MCP servers: state, tools, last error, calls (offset, limit)" },
  { method: "GET", path: "/admin/v1/learning", what: "learning from use, scope by scope: counts (offset, limit)" },
  { method: "GET", path: "/admin/v1/learning/words", what: "the words learned for one tool (scope, tool), where the operator keeps them readable" },
];

function index(ctx: AdminContext): AdminIndex {
  // Each token by its tenant and the identity it carries, never the token itself: the search playground's "as token".
  const tokens = (ctx.config.gateway.auth?.tokens ?? []).map((entry) => {
    const { token: _secret, ...identity } = entry;
    return { label: tenantOfToken(entry), ...identity, owner: identity.owner === true };
  });
  return { face: ctx.face, version: packageVersion(), mode: ctx.engine.settings.mode, tokens, routes: ROUTES };
}

function catalog(ctx: AdminContext, query: URLSearchParams): CatalogAnswer {
  const { size, sources, rebuildError } = ctx.engine.catalogStatus();
  const servers = new Map(ctx.mcpSources.map((s) => [s.toolset, s]));
  const rows = sources.map(({ error, ...status }) => {
    const server = status.source === "mcp" ? servers.get(status.toolset)?.status() : undefined;
    return {
      ...status,
      ...(error !== undefined ? { error: clipError(error) } : {}),
      ...(server !== undefined ? { mcp: { state: server.state, transport: server.transport, truncated: server.truncated } } : {}),
    };
  });
  const { items, ...page } = pageOf(rows, query);
  return { size, mode: ctx.engine.settings.mode, ...page, sources: items, ...(rebuildError ? { rebuildError } : {}) };
}

/** The identity named in a query string (tools) or a body (search), validated like a body. */
function identityFromQuery(query: URLSearchParams): AdminIdentity | undefined {
  const fields: Record<string, unknown> = {};
  for (const key of ["agentId", "profile", "channel", "token"]) {
    const value = textParam(query, key);
    if (value !== undefined) fields[key] = value;
  }
  const owner = query.get("owner");
  if (owner !== null) {
    if (owner !== "true" && owner !== "false") throw new HttpError("BAD_REQUEST", `owner must be true or false; got ${JSON.stringify(owner.slice(0, 40))}`);
    fields.owner = owner === "true";
  }
  if (Object.keys(fields).length === 0) return undefined;
  try {
    return checkIdentity(fields, "query");
  } catch (error) {
    throw badRequest(error);
  }
}

/**
 * A run context for an identity: its fields as given, or, with `token`, that token's identity
 * narrowed by them (as a request body narrows its token's); the tenant is the admin's own.
 */
function runIdentity(ctx: AdminContext, asked: AdminIdentity, mode: ToolSearchMode | undefined): AdminRunIdentity {
  const { token, profile, ...fields } = asked;
  let resolved: { agentId?: string; owner?: boolean; channel?: string; mode?: ToolSearchMode } = { ...fields, ...definedProps({ mode }) };
  if (token !== undefined) {
    const entries = ctx.config.gateway.auth?.tokens ?? [];
    // A tenant several tokens share: the first of them stands for it.
    const entry = entries.find((e) => tenantOfToken(e) === token);
    if (entry === undefined) {
      throw new HttpError(
        "BAD_REQUEST",
        entries.length === 0 ? "token: this server has no gateway.auth tokens" : `token: no token's tenant is ${token} (GET /admin/v1 lists them)`,
      );
    }
    const { token: _secret, ...identity } = entry;
    try {
      resolved = identityFromToken(resolved, identity satisfies TokenIdentity, ctx.engine.settings.mode);
    } catch (error) {
      throw new HttpError("BAD_REQUEST", `as ${token}, ${errorMessage(error)}`);
    }
  }
  return { ...resolved, ...definedProps({ profile, token }) };
}

function tools(ctx: AdminContext, query: URLSearchParams): ToolsAnswer {
  const asked = identityFromQuery(query);
  const identity = asked === undefined ? undefined : runIdentity(ctx, asked, undefined);
  const source = textParam(query, "source");
  if (source !== undefined && !["core", "plugin", "mcp"].includes(source))
    throw new HttpError("BAD_REQUEST", `source must be core, plugin or mcp; got ${JSON.stringify(source)}`);
  const toolset = textParam(query, "toolset");
  const offset = intParam(query, "offset", 0, 1_000_000_000, 0);
  const limit = intParam(query, "limit", 1, 500, 100);
  const { total, tools: list } = ctx.engine.listTools(identity, {
    ...definedProps({ source: source as ToolSource | undefined, toolset }),
    offset,
    limit,
  });
  return { identity: identity ?? null, policyApplied: identity !== undefined, total, offset, limit, tools: list };
}

async function search(ctx: AdminContext, body: unknown): Promise<SearchAnswer> {
  let parsed: Filled<typeof searchSchema>;
  try {
    parsed = checkSearch(body, "body");
  } catch (error) {
    throw badRequest(error);
  }
  const identity = runIdentity(ctx, parsed.identity ?? {}, parsed.mode);
  const { token: _label, ...context } = identity;
  let run;
  try {
    run = await ctx.engine.prepareRun({ sessionId: `admin-${randomUUID()}`, tenant: ADMIN_TENANT, prompt: parsed.request, ...context });
  } catch (error) {
    if (error instanceof ConfigInvalidError) throw badRequest(error);
    throw error;
  }
  try {
    const hits = await run.explain(parsed.request, { detail: parsed.detail, ...definedProps({ limit: parsed.limit }) });
    const { mode, requestedMode, fallbackReason, catalog, upfront } = run.telemetry();
    return { request: parsed.request, identity, mode, requestedMode, ...(fallbackReason ? { fallbackReason } : {}), catalog, upfront, hits };
  } finally {
    await run.end();
  }
}

function telemetry(ctx: AdminContext, query: URLSearchParams): TelemetryAnswer {
  const window = intParam(query, "window", 1, 360, 90);
  return { bucketMs: ctx.telemetry.bucketMs, totals: ctx.telemetry.snapshot(), series: ctx.telemetry.series(window) };
}

/**
 * Every tenant something is known of: runs and calls (live telemetry), sessions (the MCP face),
 * code bodies running and waiting (the pool). Without tokens each session of `serve` is a
 * tenant of its own, and `mcp --http` counts sessions by client address.
 */
async function tenants(ctx: AdminContext, query: URLSearchParams): Promise<TenantsAnswer> {
  const rows = new Map<string, TenantRow>();
  const row = (tenant: string) => {
    let r = rows.get(tenant);
    if (r === undefined)
      rows.set(
        tenant,
        (r = { tenant, runs: 0, activeRuns: 0, calls: { ok: 0, failed: 0 }, codeRuns: 0, sessions: 0, inFlight: 0, codeBodies: { running: 0, queued: 0 } }),
      );
    return r;
  };
  for (const activity of ctx.telemetry.tenantActivities()) {
    const { lastSeen, ...counts } = activity;
    Object.assign(row(activity.tenant), counts, { lastSeen: new Date(lastSeen).toISOString() });
  }
  for (const session of ctx.sessions?.() ?? []) {
    const r = row(session.tenant);
    r.sessions += 1;
    r.inFlight += session.inFlight;
  }
  const load = (await ctx.engine.sandboxState())?.load;
  for (const t of load?.tenants ?? []) {
    if (t.tenant === ADMIN_TENANT) continue;
    const r = row(t.tenant ?? "(no tenant)");
    r.codeBodies = { running: t.running, queued: t.queued };
  }
  const busiest = [...rows.values()].sort(
    (a, b) => b.activeRuns + b.sessions + b.codeBodies.running + b.codeBodies.queued - (a.activeRuns + a.sessions + a.codeBodies.running + a.codeBodies.queued),
  );
  const { items, ...page } = pageOf(busiest, query);
  return {
    ...page,
    tenants: items,
    shares: {
      pool: load ? { running: load.running, queued: load.queued, ready: load.ready, maxConcurrent: load.maxConcurrent, maxQueue: load.maxQueue } : null,
      ...(ctx.face === "mcp"
        ? { sessions: { open: ctx.sessions?.().length ?? 0, max: ctx.config.mcp.maxSessions, perTenant: ctx.config.mcp.maxSessionsPerTenant } }
        : {}),
    },
  };
}

/** The sandbox's layers and load, or `started: false` before any run needed code mode (asking starts nothing). */
async function sandbox(ctx: AdminContext): Promise<SandboxAnswer> {
  return (await ctx.engine.sandboxState()) ?? { started: false };
}

function mcpServers(ctx: AdminContext, query: URLSearchParams): ServersAnswer {
  const calls = ctx.telemetry.serverCalls();
  const servers = ctx.mcpSources.map((source) => {
    const { name, transport, state, tools: count, truncated, pid, reason, lastListError, stderr } = source.status();
    const seen = calls.get(name);
    return {
      name,
      transport,
      state,
      up: state === "ready",
      tools: count,
      truncated,
      ...definedProps({ pid }),
      ...(reason !== undefined ? { lastError: clipError(reason) } : {}),
      ...(lastListError !== undefined ? { lastListError: clipError(lastListError) } : {}),
      ...(stderr !== undefined ? { stderr: clipError(stderr) } : {}),
      calls: seen
        ? {
            ok: seen.ok,
            failed: seen.failed,
            meanMs: seen.latency.count > 0 ? seen.latency.sumMs / seen.latency.count : 0,
            maxMs: seen.latency.maxMs,
            ...(seen.lastError ? { lastError: { code: seen.lastError.code, at: new Date(seen.lastError.at).toISOString() } } : {}),
          }
        : { ok: 0, failed: 0, meanMs: 0, maxMs: 0 },
    };
  });
  const { items, ...page } = pageOf(servers, query);
  return { ...page, servers: items };
}

function learning(ctx: AdminContext, query: URLSearchParams): LearningAnswer {
  const control = ctx.engine.learning;
  if (control === undefined) return { enabled: false, total: 0, offset: 0, limit: 0, scopes: [], wordsKept: false };
  const scopes = control.scopes().sort((a, b) => b.records - a.records);
  const { items, ...page } = pageOf(scopes, query);
  return { enabled: true, stats: control.stats(), ...page, scopes: items, wordsKept: wordsKept(ctx.engine) };
}

function words(ctx: AdminContext, query: URLSearchParams): WordsAnswer {
  const scope = textParam(query, "scope");
  const tool = textParam(query, "tool");
  if (scope === undefined || tool === undefined)
    throw new HttpError("BAD_REQUEST", "scope and tool are both needed (a scope key from /admin/v1/learning, a tool id)");
  return { scope, tool, ...learnedWords(ctx.engine, scope, tool) };
}
