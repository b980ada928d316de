/**
 * createToolSearch's options and the run context: checked once, here, with messages that name
 * the option, the bad value and what is allowed; defaulted here and nowhere else.
 */
import type { SourceStatus } from "../catalog/catalog.js";
import { ConfigInvalidError } from "../errors.js";
import type { CatalogSource } from "../catalog/sources.js";
import type { ToolDefinition } from "../catalog/types.js";
import {
  resolveIndexCacheKey,
  resolveToolSearchConfig,
  TOOL_SEARCH_MODES,
  type ToolSearchConfig,
  type ToolSearchMode,
  type ToolSearchSettings,
} from "../settings/tool-search-config.js";
import { normalizeHooks, type HookLists, type ToolHooks } from "../dispatch/hooks.js";
import { compileOptions, int } from "../validation/ajv.js";
import { withDefault, type WithSchemaDefaults } from "../validation/schema-defaults.js";
import { RENAMED_RUN_CONTEXT_KEYS, refuseRenamedKeys } from "../validation/renamed-keys.js";
import { indexSnapshotSchema, type IndexSnapshotOptions } from "../search/storage/snapshot-store.js";
import { parsePolicy } from "../policy/policy-schema.js";
import type { PolicyConfig } from "../policy/types.js";
import { resolvePoolOptions } from "../sandbox/pool/options.js";
import type { CodePool, PoolOptions } from "../sandbox/types.js";
import type { BackendChoice } from "../search/types.js";
import type { TracingOptions } from "../telemetry/otel.js";
import type { SessionLogSink } from "../telemetry/types.js";
import { DEFAULT_ARGS_LIMITS, type ArgsLimits } from "../validation/args-limits.js";
import { DEFAULT_SCHEMA_LIMITS, type SchemaLimits } from "../validation/schema-limits.js";
import type { LearningStore } from "../learning/store.js";

/**
 * Everything createToolSearch takes: sources, policy, hooks, limits, stores, and `toolSearch`
 * (the ToolSearchConfig value, resolved into ToolSearchSettings). Named for the call it configures.
 */
export interface CreateToolSearchOptions {
  /** The `tools.toolSearch` value: true (code mode), false (direct), or settings. */
  toolSearch?: ToolSearchConfig;
  sources?: readonly CatalogSource[];
  policy?: PolicyConfig;
  hooks?: ToolHooks;
  /** "bm25f" (default), "minisearch", or a SearchBackendFactory. */
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
  /**
   * Index snapshots on disk by catalog fingerprint, so a new process with the same catalog
   * loads its index instead of building it (`tools.toolSearch.indexCacheDir` sets `dir`).
   */
  indexCache?: IndexSnapshotOptions;
  /**
   * Called once at start for each source that could not start (an MCP server whose command is
   * missing, say) or is still starting past its connect timeout; its tools are left out until it
   * is ready (an MCP server tries again by itself, in the background). Without it the only trace
   * is `engine.catalogStatus()`.
   */
  onSourceDown?: (status: SourceStatus) => void;
  /**
   * Where learning from use (`toolSearch.learning`) keeps what it learned. Default: the journal
   * `learned.journal` in the index cache folder when there is one, else memory only. A fleet can
   * plug its own (LearningStore: append, read).
   */
  learningStore?: LearningStore;
  /**
   * The tenants that exist (`RunContext.tenant` values: a gateway's token tenants). When given,
   * learned rows of any other tenant (a token that was revoked) are dropped at load, import and
   * compaction. Default: any tenant is kept.
   */
  tenants?: readonly string[];
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

const limit = (maximum: number, fallback: number) => withDefault(int(1, maximum), fallback);
const object = (methods: string[], description: string) => ({ type: "object", methods, description });

const hooks = { description: "a function or an array of functions", anyOf: [{ function: true }, { type: "array", items: { function: true } }] };

/**
 * Every option's schema, with its default when it has one: the `default` keywords are the only
 * place defaults are written (Checked is derived from them). `satisfies` makes an option missing
 * here, or one here that CreateToolSearchOptions lacks, a compile error.
 */
const optionsSchema = {
  type: "object",
  additionalProperties: false,
  properties: {
    // Each checked by its own module's schema: resolveToolSearchConfig, parsePolicy, resolvePoolOptions.
    toolSearch: true,
    policy: true,
    pool: true,
    hooks: { type: "object", additionalProperties: false, properties: { beforeToolCall: hooks, approve: hooks, afterToolCall: hooks } },
    sources: {
      type: "array",
      default: [],
      items: {
        ...object(["tools"], "a catalog source: coreTools([...]), pluginTools(id, [...]) or mcpServer({...})"),
        required: ["toolset"],
        properties: { toolset: { type: "string" } },
      },
    },
    backend: {
      description: '"bm25f", "minisearch" or a SearchBackendFactory ({ kind, create })',
      default: "bm25f",
      anyOf: [{ enum: ["bm25f", "minisearch"] }, { type: "object", methods: ["create"], required: ["kind"], properties: { kind: { type: "string" } } }],
    },
    codePool: object(["run", "report"], "a pool from createCodePool (with run and report)"),
    sessionLog: object(["write"], "a sink with a write(event) method, e.g. jsonlSessionLog(file)"),
    callTimeoutMs: withDefault(int(1, 3_600_000), 60_000),
    limits: {
      type: "object",
      additionalProperties: false,
      default: {},
      properties: {
        schemaBytes: limit(16_777_216, DEFAULT_SCHEMA_LIMITS.maxBytes),
        schemaNodes: limit(100_000, DEFAULT_SCHEMA_LIMITS.maxNodes),
        schemaDepth: limit(1_000, DEFAULT_SCHEMA_LIMITS.maxDepth),
        schemaPatterns: limit(10_000, DEFAULT_SCHEMA_LIMITS.maxPatterns),
        argsBytes: limit(1_073_741_824, DEFAULT_ARGS_LIMITS.maxBytes),
        argsDepth: limit(10_000, DEFAULT_ARGS_LIMITS.maxDepth),
      } satisfies Record<keyof InputLimits, unknown>,
    },
    tracing: {
      type: "object",
      additionalProperties: false,
      default: {},
      properties: { recordQueryText: { type: "boolean", default: false } } satisfies Record<keyof TracingOptions, unknown>,
    },
    indexCache: indexSnapshotSchema,
    onSourceDown: { function: true, description: "a function (status) => void" },
    learningStore: { ...object(["append", "read"], "a LearningStore ({ kind, append, read })"), required: ["kind"], properties: { kind: { type: "string" } } },
    tenants: { type: "array", maxItems: 100_000, items: { type: "string", minLength: 1, maxLength: 256 } },
  } satisfies Record<keyof CreateToolSearchOptions, unknown>,
};
/** The options as optionsSchema leaves them: every option with a `default` there is present. */
type Checked = WithSchemaDefaults<CreateToolSearchOptions, typeof optionsSchema>;
const checkOptions = compileOptions<Checked>("createToolSearch", optionsSchema);

/** The options that resolveOptions turns into something else; every other option reaches the engine as checked. */
type Reworked = "toolSearch" | "policy" | "hooks" | "pool" | "limits" | "indexCache";

/**
 * What the engine reads: the options as checked and defaulted by optionsSchema, with the ones
 * that are reworked (Reworked) in their resolved form. An option the engine takes as given
 * needs only its line in CreateToolSearchOptions and its schema (with its default, if any) in optionsSchema.
 */
export type ResolvedOptions = Omit<Checked, Reworked> & {
  settings: ToolSearchSettings;
  policy: PolicyConfig;
  hooks: HookLists;
  pool: PoolOptions;
  schemaLimits: SchemaLimits;
  argsLimits: ArgsLimits;
  indexCache?: IndexSnapshotOptions;
};

/** `tools.toolSearch.indexCacheDir` (and its key) as snapshot options; the `indexCache` option, when given, replaces them. */
function snapshotsFromSettings(settings: ToolSearchSettings): IndexSnapshotOptions | undefined {
  if (settings.indexCacheDir === undefined) return undefined;
  const key = resolveIndexCacheKey(settings);
  return { dir: settings.indexCacheDir, ...(key !== undefined ? { key } : {}) };
}

/**
 * A source written before the rename names its provider `owner`; ajv alone would only say that
 * `toolset` is missing. `owner` now means only the caller's owner rights (RunContext.owner).
 */
function refuseOwnerSources(sources: unknown): void {
  if (!Array.isArray(sources)) return;
  for (const [i, source] of sources.entries()) {
    if (typeof source === "object" && source !== null && "owner" in source && !("toolset" in source)) {
      throw new ConfigInvalidError(
        `createToolSearch.sources.${i}: CatalogSource.owner was renamed toolset (the "core", plugin id or MCP server name in its tool ids); owner now means only the caller's owner rights`,
      );
    }
  }
}

/**
 * The default backend was called "fts5" while it ranked with an SQLite FTS5 table; it no longer
 * does, and ajv's enum alone would not say what the name became.
 */
function refuseRenamedBackend(backend: unknown): void {
  if (backend === "fts5") {
    throw new ConfigInvalidError('createToolSearch.backend "fts5" was renamed "bm25f" (the default backend: BM25F scoring, SQLite snapshots, no FTS5 table)');
  }
}

export function resolveOptions(options: CreateToolSearchOptions | undefined): ResolvedOptions {
  refuseOwnerSources(options?.sources);
  refuseRenamedBackend(options?.backend);
  const { toolSearch, policy, hooks, pool, limits: l, indexCache, ...taken } = checkOptions(options ?? {}, "createToolSearch");
  // The pool options are checked here even when no run uses code mode yet, so a typo fails at start.
  resolvePoolOptions(pool);
  const settings = resolveToolSearchConfig(toolSearch);
  const snapshots = indexCache ?? snapshotsFromSettings(settings);
  return {
    ...taken,
    settings,
    ...(snapshots !== undefined ? { indexCache: snapshots } : {}),
    policy: parsePolicy(policy),
    hooks: normalizeHooks(hooks),
    pool: pool ?? {},
    schemaLimits: { maxBytes: l.schemaBytes, maxNodes: l.schemaNodes, maxDepth: l.schemaDepth, maxPatterns: l.schemaPatterns },
    argsLimits: { maxBytes: l.argsBytes, maxDepth: l.argsDepth },
  };
}

/** The per-run context a Gateway passes to prepareRun. */
export interface RunContext {
  sessionId: string;
  /**
   * Whose run this is, for fair shares of what runs share (the code pool's queue and slots, an
   * MCP server's call slots): a token's label in the gateway and the MCP face; default: the sessionId.
   */
  tenant?: string;
  /**
   * Whose turns this run's searches, describes and unknown-id lookups take on the main thread
   * every run of the engine shares (served round robin across these keys, so one key's flood
   * never queues in front of another's search). Default: `tenant`, else the sessionId. The
   * gateway and the MCP face set it to the token's tenant, or to the client's address without
   * auth (session ids are the client's to choose, so they would give one client as many turns
   * as it likes).
   */
  shareKey?: string;
  agentId?: string;
  profile?: string;
  /** Names a policy layer (`policy.workspaces[name]`) like profile and channel. */
  workspace?: string;
  channel?: string;
  /** The caller is the owner: owner-only tools are admitted. */
  owner?: boolean;
  clientTools?: readonly ToolDefinition[];
  /** The user's prompt (directory mode picks likely schemas from it). */
  prompt?: string;
  /** Overrides the configured mode for this run. */
  mode?: ToolSearchMode;
}

/** Who a run is for and how it runs: the run context's fields that the gateway's request body shares (with its own bound on strings). */
export function runIdentityProperties(text: Record<string, unknown>): Record<string, unknown> {
  return { agentId: text, profile: text, channel: text, owner: { type: "boolean" }, mode: { enum: TOOL_SEARCH_MODES } };
}

const text = { type: "string" };
const runContextSchema = {
  type: "object",
  required: ["sessionId"],
  properties: {
    sessionId: { type: "string", minLength: 1, description: "a non-empty string" },
    tenant: { type: "string", minLength: 1, description: "a non-empty string" },
    shareKey: { type: "string", minLength: 1, description: "a non-empty string" },
    ...runIdentityProperties(text),
    workspace: text,
    prompt: text,
  },
};
const checkContext = compileOptions<RunContext>("prepareRun", runContextSchema);

export function checkRunContext(ctx: unknown): RunContext {
  // The schema takes unknown keys, so the old name would otherwise be dropped with its layer's rules.
  refuseRenamedKeys(ctx, "RunContext", RENAMED_RUN_CONTEXT_KEYS, " (it names the policy layer policy.workspaces)");
  return checkContext(ctx, "prepareRun");
}
