/**
 * createToolSearch's options and the run context: checked once, here, with messages that name
 * the option, the bad value and what is allowed; defaulted here and nowhere else.
 */
import type { CatalogSource } from "../catalog/sources.js";
import type { ToolDefinition } from "../catalog/types.js";
import { resolveToolSearchConfig, TOOL_SEARCH_MODES, type ToolSearchConfig, type ToolSearchMode, type ToolSearchSettings } from "../config/tool-search-config.js";
import { normalizeHooks, type HookLists, type ToolHooks } from "../dispatch/hooks.js";
import { ConfigInvalidError } from "../errors.js";
import { parsePolicy } from "../policy/policy-schema.js";
import type { PolicyConfig } from "../policy/types.js";
import { resolvePoolOptions } from "../sandbox/pool/options.js";
import type { CodePool, PoolOptions } from "../sandbox/types.js";
import type { BackendChoice } from "../search/types.js";
import type { TracingOptions } from "../telemetry/otel.js";
import type { SessionLogSink } from "../telemetry/types.js";
import { DEFAULT_ARGS_LIMITS, type ArgsLimits } from "../validation/args-limits.js";
import { DEFAULT_SCHEMA_LIMITS, type SchemaLimits } from "../validation/schema-limits.js";

export interface ToolSearchOptions {
  /** The `tools.toolSearch` value: true (code mode), false (direct), or settings. */
  toolSearch?: ToolSearchConfig;
  sources?: readonly CatalogSource[];
  policy?: PolicyConfig;
  hooks?: ToolHooks;
  /** "fts5" (default), "minisearch", or a SearchBackendFactory. */
  backend?: BackendChoice;
  /** Code-mode pool limits. */
  pool?: PoolOptions;
  /**
   * A code-mode pool to use instead of starting one (from `createCodePool`), e.g. one pool of
   * children shared by several engines. The engine does not close it.
   */
  codePool?: CodePool;
  sessionLog?: SessionLogSink;
  /** Per tool call deadline (default 60000 ms). */
  callTimeoutMs?: number;
  /** Caps on what untrusted callers send; each has a default (see InputLimits). */
  limits?: InputLimits;
  /** OpenTelemetry spans (emitted only when an SDK is registered): what they may carry. */
  tracing?: TracingOptions;
}

/**
 * Caps on untrusted input, enforced before any work that grows with it. Schemas from client
 * tools and MCP servers over a schema cap are refused (CONFIG_INVALID naming the tool and the
 * cap; an MCP tool keeps a permissive schema and a note instead); arguments over an args cap
 * are INVALID_ARGS.
 */
export interface InputLimits {
  /** Bytes of an untrusted input schema's JSON (default 65536). */
  schemaBytes?: number;
  /** Schema objects in an untrusted input schema (default 400). */
  schemaNodes?: number;
  /** Nesting depth of an untrusted input schema (default 24). */
  schemaDepth?: number;
  /** `pattern`s and `patternProperties` keys in an untrusted input schema (default 64). */
  schemaPatterns?: number;
  /** Bytes of one call's arguments, any source (default 524288). */
  argsBytes?: number;
  /** Nesting depth of one call's arguments (default 64). */
  argsDepth?: number;
}

export interface ResolvedOptions {
  settings: ToolSearchSettings;
  sources: readonly CatalogSource[];
  policy: PolicyConfig;
  hooks: HookLists;
  backend: BackendChoice;
  pool: PoolOptions;
  codePool?: CodePool;
  sessionLog?: SessionLogSink;
  callTimeoutMs: number;
  schemaLimits: SchemaLimits;
  argsLimits: ArgsLimits;
  tracing: { recordQueryText: boolean };
}

const KNOWN_OPTIONS = new Set(["toolSearch", "sources", "policy", "hooks", "backend", "pool", "codePool", "sessionLog", "callTimeoutMs", "limits", "tracing"]);
const KNOWN_LIMITS = new Set(["schemaBytes", "schemaNodes", "schemaDepth", "schemaPatterns", "argsBytes", "argsDepth"]);

export function resolveOptions(options: ToolSearchOptions | undefined): ResolvedOptions {
  const o = options ?? {};
  if (typeof o !== "object") throw new ConfigInvalidError(`createToolSearch options must be an object; got ${typeof o}`);
  for (const key of Object.keys(o)) {
    if (!KNOWN_OPTIONS.has(key)) throw new ConfigInvalidError(`createToolSearch: unknown option "${key}"; known: ${[...KNOWN_OPTIONS].join(", ")}`);
  }
  return {
    settings: resolveToolSearchConfig(o.toolSearch),
    sources: checkSources(o.sources),
    policy: parsePolicy(o.policy),
    hooks: normalizeHooks(o.hooks),
    backend: checkBackend(o.backend),
    pool: checkPoolOptions(o.pool),
    ...(o.codePool !== undefined ? { codePool: checkCodePool(o.codePool) } : {}),
    ...(o.sessionLog !== undefined ? { sessionLog: checkSink(o.sessionLog) } : {}),
    callTimeoutMs: checkInteger(o.callTimeoutMs, "callTimeoutMs", 1, 3_600_000) ?? 60_000,
    ...resolveLimits(o.limits),
    tracing: checkTracing(o.tracing),
  };
}

function checkTracing(tracing: unknown): { recordQueryText: boolean } {
  if (tracing === undefined) return { recordQueryText: false };
  if (typeof tracing !== "object" || tracing === null) throw new ConfigInvalidError(`createToolSearch: tracing must be an object; got ${typeof tracing}`);
  const { recordQueryText, ...rest } = tracing as TracingOptions;
  const unknown = Object.keys(rest);
  if (unknown.length > 0) throw new ConfigInvalidError(`createToolSearch: unknown tracing option "${unknown[0]}"; known: recordQueryText`);
  if (recordQueryText !== undefined && typeof recordQueryText !== "boolean") throw new ConfigInvalidError(`createToolSearch: tracing.recordQueryText must be a boolean; got ${typeof recordQueryText}`);
  return { recordQueryText: recordQueryText === true };
}

function resolveLimits(limits: unknown): { schemaLimits: SchemaLimits; argsLimits: ArgsLimits } {
  if (limits === undefined) return { schemaLimits: DEFAULT_SCHEMA_LIMITS, argsLimits: DEFAULT_ARGS_LIMITS };
  if (typeof limits !== "object" || limits === null || Array.isArray(limits)) throw new ConfigInvalidError(`limits must be an object; got ${JSON.stringify(limits)}`);
  const l = limits as Record<string, unknown>;
  for (const key of Object.keys(l)) {
    if (!KNOWN_LIMITS.has(key)) throw new ConfigInvalidError(`limits: unknown option "${key}"; known: ${[...KNOWN_LIMITS].join(", ")}`);
  }
  const int = (key: string, max: number) => checkInteger(l[key], `limits.${key}`, 1, max);
  return {
    schemaLimits: {
      maxBytes: int("schemaBytes", 16_777_216) ?? DEFAULT_SCHEMA_LIMITS.maxBytes,
      maxNodes: int("schemaNodes", 100_000) ?? DEFAULT_SCHEMA_LIMITS.maxNodes,
      maxDepth: int("schemaDepth", 1_000) ?? DEFAULT_SCHEMA_LIMITS.maxDepth,
      maxPatterns: int("schemaPatterns", 10_000) ?? DEFAULT_SCHEMA_LIMITS.maxPatterns,
    },
    argsLimits: {
      maxBytes: int("argsBytes", 1_073_741_824) ?? DEFAULT_ARGS_LIMITS.maxBytes,
      maxDepth: int("argsDepth", 10_000) ?? DEFAULT_ARGS_LIMITS.maxDepth,
    },
  };
}

function checkSources(sources: unknown): readonly CatalogSource[] {
  if (sources === undefined) return [];
  if (!Array.isArray(sources)) throw new ConfigInvalidError(`sources must be an array of catalog sources (coreTools, pluginTools, mcpServer); got ${typeof sources}`);
  sources.forEach((source: unknown, i) => {
    const s = source as Partial<CatalogSource> | null;
    if (typeof s !== "object" || s === null || typeof s.tools !== "function" || typeof s.owner !== "string") {
      throw new ConfigInvalidError(`sources[${i}] is not a catalog source; build one with coreTools([...]), pluginTools(id, [...]) or mcpServer({...})`);
    }
  });
  return sources as CatalogSource[];
}

function checkBackend(backend: unknown): BackendChoice {
  if (backend === undefined) return "fts5";
  if (backend === "fts5" || backend === "minisearch") return backend;
  if (typeof backend === "object" && backend !== null && typeof (backend as { create?: unknown }).create === "function") return backend as BackendChoice;
  throw new ConfigInvalidError(`backend must be "fts5", "minisearch" or a SearchBackendFactory; got ${JSON.stringify(backend)}`);
}

/** Checked here even when no run uses code mode yet, so a typo fails at start. */
function checkPoolOptions(pool: PoolOptions | undefined): PoolOptions {
  resolvePoolOptions(pool);
  return pool ?? {};
}

function checkCodePool(pool: unknown): CodePool {
  const p = pool as Partial<CodePool> | null;
  if (typeof p !== "object" || p === null || typeof p.run !== "function" || typeof p.report !== "function") {
    throw new ConfigInvalidError("codePool must be a pool from createCodePool (with run and report)");
  }
  return p as CodePool;
}

function checkSink(sink: unknown): SessionLogSink {
  if (typeof sink !== "object" || sink === null || typeof (sink as { write?: unknown }).write !== "function") {
    throw new ConfigInvalidError("sessionLog must be a sink with a write(event) method, e.g. jsonlSessionLog(file)");
  }
  return sink as SessionLogSink;
}

function checkInteger(value: unknown, name: string, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
    throw new ConfigInvalidError(`${name} must be an integer from ${min} to ${max}; got ${JSON.stringify(value)}`);
  }
  return value;
}

/** The per-run context a Gateway passes to prepareRun. */
export interface RunContext {
  sessionId: string;
  agentId?: string;
  profile?: string;
  /** Names a policy layer (`policy.sandboxes[name]`) like profile and channel; not the code-mode sandbox. */
  sandbox?: string;
  channel?: string;
  /** The caller is the owner: owner-only tools are admitted. Not the tools' `owner` (their provider). */
  owner?: boolean;
  clientTools?: readonly ToolDefinition[];
  /** The user's prompt (directory mode picks likely schemas from it). */
  prompt?: string;
  /** Overrides the configured mode for this run. */
  mode?: ToolSearchMode;
}

export function checkRunContext(ctx: unknown): RunContext {
  if (typeof ctx !== "object" || ctx === null) throw new ConfigInvalidError(`prepareRun needs a run context object { sessionId, ... }; got ${JSON.stringify(ctx)}`);
  const c = ctx as Record<string, unknown>;
  if (typeof c.sessionId !== "string" || c.sessionId.length === 0) throw new ConfigInvalidError(`prepareRun: sessionId must be a non-empty string; got ${JSON.stringify(c.sessionId)}`);
  for (const key of ["agentId", "profile", "sandbox", "channel", "prompt"] as const) {
    if (c[key] !== undefined && typeof c[key] !== "string") throw new ConfigInvalidError(`prepareRun: ${key} must be a string; got ${JSON.stringify(c[key])}`);
  }
  if (c.owner !== undefined && typeof c.owner !== "boolean") throw new ConfigInvalidError(`prepareRun: owner must be a boolean; got ${JSON.stringify(c.owner)}`);
  if (c.mode !== undefined && !TOOL_SEARCH_MODES.includes(c.mode as ToolSearchMode)) {
    throw new ConfigInvalidError(`prepareRun: mode must be one of ${TOOL_SEARCH_MODES.join(", ")}; got ${JSON.stringify(c.mode)}`);
  }
  return c as unknown as RunContext;
}
