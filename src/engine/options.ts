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
  type ToolSearchSettings,
} from "../settings/tool-search-config.js";
import { normalizeHooks, type HookLists, type ToolHooks } from "../dispatch/hooks.js";
import { compileOptions } from "../validation/ajv.js";
import { arrayOf, boolean, declared, int, object, oneOf, string, withDefault, type Filled, type Named, type TypeOf } from "../validation/typed-schema.js";
import { RENAMED_RUN_CONTEXT_KEYS, refuseRenamedKeys } from "../validation/renamed-keys.js";
import { indexSnapshotSchema, type IndexSnapshotOptions } from "../search/storage/snapshot-store.js";
import { parsePolicy } from "../policy/policy-schema.js";
import type { PolicyConfig } from "../policy/types.js";
import { resolvePoolOptions } from "../sandbox/pool/options.js";
import type { CodePool, PoolOptions } from "../sandbox/types.js";
import type { BackendChoice } from "../search/types.js";
import { tracingSchema, type TracingOptions } from "../telemetry/otel.js";
import type { SessionLogSink } from "../telemetry/types.js";
import { DEFAULT_ARGS_LIMITS, type ArgsLimits } from "../validation/args-limits.js";
import { DEFAULT_SCHEMA_LIMITS, type SchemaLimits } from "../validation/schema-limits.js";
import type { LearningStore } from "../learning/store.js";
import { definedProps } from "../defined.js";

const limit = (maximum: number, fallback: number) => withDefault(int(1, maximum), fallback);
const hooks = { description: "a function or an array of functions", anyOf: [{ function: true }, { type: "array", items: { function: true } }] };

/**
 * Caps on untrusted input, enforced before any work that grows with it. Schemas from client
 * tools and MCP servers over a schema cap are refused (CONFIG_INVALID naming the tool and the
 * cap; an MCP tool keeps a permissive schema and a note instead); arguments over an args cap
 * are INVALID_ARGS.
 */
const inputLimitsSchema = object({
  /** Bytes of an untrusted input schema's JSON (default 65536). */
  schemaBytes: limit(16_777_216, DEFAULT_SCHEMA_LIMITS.maxBytes),
  /** Schema objects in an untrusted input schema (default 400). */
  schemaNodes: limit(100_000, DEFAULT_SCHEMA_LIMITS.maxNodes),
  /** Nesting depth of an untrusted input schema (default 24). */
  schemaDepth: limit(1_000, DEFAULT_SCHEMA_LIMITS.maxDepth),
  /** `pattern`s and `patternProperties` keys in an untrusted input schema (default 64). */
  schemaPatterns: limit(10_000, DEFAULT_SCHEMA_LIMITS.maxPatterns),
  /** Bytes of one call's arguments, any source (default 524288). */
  argsBytes: limit(1_073_741_824, DEFAULT_ARGS_LIMITS.maxBytes),
  /** Nesting depth of one call's arguments (default 64). */
  argsDepth: limit(10_000, DEFAULT_ARGS_LIMITS.maxDepth),
});

/** Caps on what untrusted callers send, each optional: inputLimitsSchema documents each one, its range and default. */
export type InputLimits = TypeOf<typeof inputLimitsSchema>;

/**
 * Everything createToolSearch takes: sources, policy, hooks, limits, stores, and `toolSearch`
 * (the ToolSearchConfig value, resolved into ToolSearchSettings). Each option is written here
 * once: its doc comment, its schema and its default (the only place defaults are written);
 * CreateToolSearchOptions and what resolveOptions returns are derived from it.
 */
const optionsSchema = object({
  // toolSearch, policy and pool are each checked by their own module's schema: resolveToolSearchConfig, parsePolicy, resolvePoolOptions.
  /** The `tools.toolSearch` value: true (code mode), false (direct), or settings. */
  toolSearch: declared<ToolSearchConfig>()({}),
  /** Allow/deny globs per layer, fail-closed: which tools a run may see and call. */
  policy: {} as Named<PolicyConfig>,
  /** Code-mode pool limits. */
  pool: {} as Named<PoolOptions>,
  hooks: declared<ToolHooks>()({ type: "object", additionalProperties: false, properties: { beforeToolCall: hooks, approve: hooks, afterToolCall: hooks } }),
  sources: withDefault(
    arrayOf(
      declared<CatalogSource>()({
        type: "object",
        methods: ["tools"],
        description: "a catalog source: coreTools([...]), pluginTools(id, [...]) or mcpServer({...})",
        required: ["toolset"],
        properties: { toolset: { type: "string" } },
      }),
    ),
    [],
  ),
  /** "bm25f" (default), "minisearch", or a SearchBackendFactory. */
  backend: withDefault(
    declared<BackendChoice>()({
      description: '"bm25f", "minisearch" or a SearchBackendFactory ({ kind, create })',
      anyOf: [{ enum: ["bm25f", "minisearch"] }, { type: "object", methods: ["create"], required: ["kind"], properties: { kind: { type: "string" } } }],
    }),
    "bm25f",
  ),
  /**
   * A code-mode pool to use instead of starting one (from `createCodePool`), e.g. one pool of
   * children shared by several engines. The engine does not close it.
   */
  codePool: declared<CodePool>()({ type: "object", methods: ["run", "report"], description: "a pool from createCodePool (with run and report)" }),
  sessionLog: declared<SessionLogSink>()({ type: "object", methods: ["write"], description: "a sink with a write(event) method, e.g. jsonlSessionLog(file)" }),
  /** Per tool call deadline (default 60000 ms). */
  callTimeoutMs: withDefault(int(1, 3_600_000), 60_000),
  /** Caps on what untrusted callers send; each has a default (see InputLimits). */
  limits: withDefault(inputLimitsSchema, {}),
  /** OpenTelemetry spans (emitted only when an SDK is registered): what they may carry. */
  tracing: withDefault(tracingSchema, {}) as Named<TracingOptions, typeof tracingSchema & { default: object }>,
  /**
   * Index snapshots on disk by catalog fingerprint, so a new process with the same catalog
   * loads its index instead of building it (`tools.toolSearch.indexCacheDir` sets `dir`).
   */
  indexCache: indexSnapshotSchema as Named<IndexSnapshotOptions, typeof indexSnapshotSchema>,
  /**
   * Called once at start for each source that could not start (an MCP server whose command is
   * missing, say) or is still starting past its connect timeout; its tools are left out until it
   * is ready (an MCP server tries again by itself, in the background). Without it the only trace
   * is `engine.catalogStatus()`.
   */
  onSourceDown: declared<(status: SourceStatus) => void>()({ function: true, description: "a function (status) => void" }),
  /**
   * Where learning from use (`toolSearch.learning`) keeps what it learned. Default: the journal
   * `learned.journal` in the index cache folder when there is one, else memory only. A fleet can
   * plug its own (LearningStore: append, read).
   */
  learningStore: declared<LearningStore>()({
    type: "object",
    methods: ["append", "read"],
    description: "a LearningStore ({ kind, append, read })",
    required: ["kind"],
    properties: { kind: { type: "string" } },
  }),
  /**
   * The tenants that exist (`RunContext.tenant` values: a gateway's token tenants). When given,
   * learned rows of any other tenant (a token that was revoked) are dropped at load, import and
   * compaction. Default: any tenant is kept.
   */
  tenants: arrayOf(string({ minLength: 1, maxLength: 256 }), { maxItems: 100_000 }),
});

/**
 * Everything createToolSearch takes, each option optional: optionsSchema documents each one, its
 * check and its default. Named for the call it configures.
 */
export type CreateToolSearchOptions = TypeOf<typeof optionsSchema>;

/** The options as optionsSchema leaves them: every option with a `default` there is present. */
type Checked = Filled<typeof optionsSchema>;
const checkOptions = compileOptions("createToolSearch", optionsSchema);

/** The options that resolveOptions turns into something else; every other option reaches the engine as checked. */
type Reworked = "toolSearch" | "policy" | "hooks" | "pool" | "limits" | "indexCache";

/**
 * What the engine reads: the options as checked and defaulted by optionsSchema, with the ones
 * that are reworked (Reworked) in their resolved form. An option the engine takes as given
 * needs only its entry in optionsSchema (its doc comment, its schema and its default, if any).
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
  return { dir: settings.indexCacheDir, ...definedProps({ key }) };
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
    ...definedProps({ indexCache: snapshots }),
    policy: parsePolicy(policy),
    hooks: normalizeHooks(hooks),
    pool: pool ?? {},
    schemaLimits: { maxBytes: l.schemaBytes, maxNodes: l.schemaNodes, maxDepth: l.schemaDepth, maxPatterns: l.schemaPatterns },
    argsLimits: { maxBytes: l.argsBytes, maxDepth: l.argsDepth },
  };
}

const nonEmpty = string({ minLength: 1, description: "a non-empty string" });
const text = string();

/** The per-run context a Gateway passes to prepareRun. Unknown keys are taken (and ignored). */
const runContextSchema = object(
  {
    sessionId: nonEmpty,
    /**
     * Whose run this is, for fair shares of what runs share (the code pool's queue and slots, an
     * MCP server's call slots): a token's label in the gateway and the MCP face; default: the sessionId.
     */
    tenant: nonEmpty,
    /**
     * Whose turns this run's searches, describes and unknown-id lookups take on the main thread
     * every run of the engine shares (served round robin across these keys, so one key's flood
     * never queues in front of another's search). Default: `tenant`, else the sessionId. The
     * gateway and the MCP face set it to the token's tenant, or to the client's address without
     * auth (session ids are the client's to choose, so they would give one client as many turns
     * as it likes).
     */
    shareKey: nonEmpty,
    agentId: text,
    profile: text,
    channel: text,
    /** The caller is the owner: owner-only tools are admitted. */
    owner: boolean(),
    /** Overrides the configured mode for this run. */
    mode: oneOf(TOOL_SEARCH_MODES),
    /** Names a policy layer (`policy.workspaces[name]`) like profile and channel. */
    workspace: text,
    /** Checked where the run adds them (clientToolOf, the catalog's checks of untrusted tools). */
    clientTools: declared<readonly ToolDefinition[]>()({}),
    /** The user's prompt (directory mode picks likely schemas from it). */
    prompt: text,
  },
  { required: ["sessionId"], additionalProperties: true },
);

/** The per-run context a Gateway passes to prepareRun: runContextSchema documents each field. */
export type RunContext = TypeOf<typeof runContextSchema>;

const checkContext = compileOptions("prepareRun", runContextSchema);

/**
 * Who a run is for and how it runs: the run context's fields that the gateway's request body
 * shares, its strings bounded by `text`.
 */
export function runIdentityProperties<const T extends object>(text: T) {
  const { owner, mode } = runContextSchema.properties;
  return { agentId: text, profile: text, channel: text, owner, mode };
}

export function checkRunContext(ctx: unknown): RunContext {
  // The schema takes unknown keys, so the old name would otherwise be dropped with its layer's rules.
  refuseRenamedKeys(ctx, "RunContext", RENAMED_RUN_CONTEXT_KEYS, " (it names the policy layer policy.workspaces)");
  return checkContext(ctx, "prepareRun");
}
