/**
 * A config file's settings, for both of its faces (`serve`, the gateway, and `mcp`, the MCP
 * server): the JSON5 config file's sections, environment fallbacks for the
 * provider (OPENAI_BASE_URL, OPENAI_API_KEY, or ANTHROPIC_BASE_URL, ANTHROPIC_API_KEY when
 * provider.api is "anthropic"; TOOLSEARCH_MODEL), and defaults, in one place.
 */
import path from "node:path";
import { compileOptions } from "../validation/ajv.js";
import { arrayOf, boolean, declared, int, object, oneOf, string, withDefault, type Filled, type TypeOf } from "../validation/typed-schema.js";
import type { JsonObject } from "./dot-path.js";
import { resolveIndexCacheKey, TOOL_SEARCH_MODES, type ToolSearchConfig, type ToolSearchObject } from "../settings/tool-search-config.js";
import { DEFAULT_MAX_REQUEST_BYTES, DEFAULT_MAX_TURNS, DEFAULT_MAX_TURN_RESULT_BYTES } from "../agent/agent-turn.js";
import { ConfigInvalidError } from "../errors.js";
import { SERVER_ENTRY_OPTIONS, type McpServerConfig, type McpServerOptions } from "../mcp/options.js";
import type { PolicyConfig } from "../policy/types.js";
import { PROVIDER_APIS } from "../wire/wire-types.js";
import { checkAuthTokens, MIN_TOKEN_LENGTH, tokenIdentitySchema, type AuthSettings, type AuthToken } from "../auth/token-auth.js";
import { definedProps } from "../defined.js";

const MIB = 1024 * 1024;
const text = string({ minLength: 1, maxLength: 256 });

/** One `provider.models` entry written as an object: what the alias runs as. */
const modelEntrySchema = object(
  {
    /** The provider's model the alias's turns ask for. */
    model: string({ minLength: 1 }),
    /** The mode the alias's turns run in (default: the gateway's). */
    mode: oneOf(TOOL_SEARCH_MODES),
  },
  { required: ["model"] },
);

/** `provider.models` as written: each alias, the model it is (`"alias": "model"`) or `{ model, mode }`. */
type ModelEntries = Record<string, string | TypeOf<typeof modelEntrySchema>>;

/** One `provider.models` entry: the name a client sends, what it runs as. */
export type ModelAlias = { /** The name a client sends as `model`. */ id: string } & TypeOf<typeof modelEntrySchema>;

/** The `provider` section: what the file may leave out is the environment's (providerSettings) or the schema's default. */
const providerSchema = withDefault(
  object({
    /** Which API the provider speaks: OpenAI Chat Completions (default), OpenAI Responses, or Anthropic Messages. */
    api: withDefault(oneOf(PROVIDER_APIS), "chat"),
    /**
     * For "chat" and "responses" the URL ends with /v1; for "anthropic" it is the host (the client adds /v1/messages).
     * Default: OPENAI_BASE_URL (ANTHROPIC_BASE_URL for "anthropic"), else the local scripted provider.
     */
    baseURL: string({ minLength: 1 }),
    /** Default: OPENAI_API_KEY (ANTHROPIC_API_KEY for "anthropic"). */
    apiKey: string(),
    /** Default: TOOLSEARCH_MODEL. */
    model: string({ minLength: 1 }),
    /** One provider request, from sending it to the last byte of the answer (headers and body). */
    timeoutMs: withDefault(int(100, 600_000), 60_000),
    /** Anthropic's required max_tokens (default 4096). */
    maxTokens: int(1, 1_000_000),
    /** A provider answer over this many bytes fails the turn (PROVIDER_FAILED) instead of being read whole (default 16 MiB). */
    maxResponseBytes: withDefault(int(1024, 1024 * MIB), 16 * MIB),
    /** A provider request whose JSON would be over this many bytes is not sent: the turn fails (TURN_BUDGET) (default 16 MiB). */
    maxRequestBytes: withDefault(int(1024, 1024 * MIB), DEFAULT_MAX_REQUEST_BYTES),
    /**
     * The `model` names the OpenAI- and Anthropic-compatible routes take (`GET /v1/models` lists
     * them), each mapped to the provider's model and, optionally, the mode its turns run in.
     * Default: one alias, `model` itself.
     */
    models: declared<ModelEntries>()({
      type: "object",
      minProperties: 1,
      maxProperties: 256,
      propertyNames: { minLength: 1, maxLength: 256 },
      additionalProperties: { anyOf: [string({ minLength: 1 }), modelEntrySchema] },
    }),
  }),
  {},
);

/** The `gateway.auth.tokens` entry schema: a token (or the variable holding it) and the identity it carries. */
const authTokenEntrySchema = object({
  /** The token itself; or `tokenEnv`. */
  token: string({ minLength: MIN_TOKEN_LENGTH, maxLength: 4_096 }),
  /** The name of an environment variable holding the token, read when the config is resolved. */
  tokenEnv: string({ pattern: "^[A-Za-z_][A-Za-z0-9_]*$" }),
  ...tokenIdentitySchema.properties,
});

/** `gateway.workers`: restarts, cool-down and heartbeats of `serve --workers` (per slot, not shared). */
const workersSchema = withDefault(
  object({
    /** Restarts of one slot within a rolling minute; one more death and the slot cools down. */
    restartsPerMinute: withDefault(int(0, 100), 5),
    /** A slot that spent its restarts is forked again after this long, with a fresh budget. */
    cooldownMs: withDefault(int(1_000, 3_600_000), 60_000),
    /** How often a worker tells the primary it is alive; three missed beats mark it unresponsive. */
    heartbeatMs: withDefault(int(100, 60_000), 1_000),
    /** A worker silent this long is killed (SIGKILL) and restarted like a crash; 0: never. */
    killUnresponsiveMs: withDefault(int(0, 3_600_000), 30_000),
  }),
  {},
);

const gatewaySchema = withDefault(
  object({
    host: withDefault(string({ minLength: 1 }), "127.0.0.1"),
    port: withDefault(int(0, 65_535), 8788),
    /** Provider round trips per agent turn before the turn is cut. */
    maxTurns: withDefault(int(1, 100), DEFAULT_MAX_TURNS),
    /**
     * UTF-8 bytes of tool results one turn keeps in its conversation; the result crossing it is cut
     * with a marker, later calls are answered unrun (default 1 MiB).
     */
    maxTurnResultBytes: withDefault(int(1024, 1024 * MIB), DEFAULT_MAX_TURN_RESULT_BYTES),
    /** One whole agent turn, provider requests and tool calls; past it the turn fails (TURN_BUDGET) (default 10 minutes). */
    turnTimeoutMs: withDefault(int(1_000, 3_600_000), 600_000),
    maxBodyBytes: withDefault(int(1024, 64 * MIB), MIB),
    /**
     * On SIGTERM/SIGINT (`serve`, `serve --workers`, `mcp`): how long requests in flight get to
     * finish once no new one is taken; those still running then are stopped and answered CLOSING.
     */
    drainMs: withDefault(int(0, 600_000), 10_000),
    /** Bearer tokens and the identity each carries; without it the gateway binds loopback only. */
    auth: object({ tokens: arrayOf(authTokenEntrySchema, { minItems: 1, maxItems: 1_000 }) }, { required: ["tokens"] }),
    /** `serve --workers`: how the primary keeps its workers alive. */
    workers: workersSchema,
    /**
     * Without `auth`: whether a request body's `owner: true` is honoured (default false: refused
     * with 403). Any local process, and any page that gets past the browser checks, can send one.
     * Ignored with `auth`, where the token says who the caller is.
     */
    trustLoopbackIdentity: withDefault(boolean(), false),
    /**
     * The admin API (`/admin/v1/`) and the web console (`/console`) on `serve` and `mcp --http`
     * (default true): owner tokens only with `auth`, loopback clients only without.
     */
    admin: withDefault(boolean(), true),
  }),
  {},
);

/** `toolsearch mcp`: who its sessions run as (never taken from the client) and how many it holds. */
const mcpFaceSchema = withDefault(
  object({
    agentId: text,
    owner: boolean(),
    channel: text,
    /** Streamable HTTP sessions held at once; an initialize past it is refused (503). */
    maxSessions: withDefault(int(1, 1_000), 32),
    /** A Streamable HTTP session unused this long is closed. */
    sessionIdleMs: withDefault(int(1_000, 86_400_000), 30 * 60_000),
    /**
     * Sessions one token (without auth: one client address) may hold; past it, 429. Default max(1, ceil(maxSessions / 4))
     * (it follows maxSessions, so resolveServerConfig computes it).
     */
    maxSessionsPerTenant: int(1, 1_000),
    /** JSON-RPC requests of one session answered at once (each message of a batch counts); past it, TOO_MANY_REQUESTS. */
    maxInFlightPerSession: withDefault(int(1, 1_000), 8),
    /** Answer bytes a client has not read (per HTTP response, or stdio's stdout) before it is disconnected. */
    maxUnreadBytes: withDefault(int(65_536, 1024 * MIB), 16 * MIB),
  }),
  {},
);

/**
 * `metrics`: OpenTelemetry metrics of `serve` and `mcp` (metrics/). Off unless asked for, by
 * this section or by OTEL_METRICS_EXPORTER ("prometheus", "otlp", a comma list): the SDK and
 * its exporters are optional peer dependencies, loaded only then.
 */
const metricsSchema = withDefault(
  object({
    /**
     * `GET /metrics` in Prometheus text format, on `serve` and `mcp --http` (same access as the admin API).
     * Default: whether OTEL_METRICS_EXPORTER names "prometheus" (metricsSettings).
     */
    prometheus: boolean(),
    /**
     * Pushed over OTLP/HTTP to OTEL_EXPORTER_OTLP_METRICS_ENDPOINT (or OTEL_EXPORTER_OTLP_ENDPOINT) every `exportIntervalMs`.
     * Default: whether OTEL_METRICS_EXPORTER names "otlp" (metricsSettings).
     */
    otlp: boolean(),
    exportIntervalMs: withDefault(int(1_000, 3_600_000), 60_000),
  }),
  {},
);

/** The JSONL session log: where, and whether search query text is written (default: only its size). */
const sessionLogSchema = object(
  {
    /** The log file, relative to the config file's folder. */
    file: string({ minLength: 1 }),
    /** Whether search query text is written (default false: only its size). */
    recordQueries: boolean(),
  },
  { required: ["file"] },
);

/** Keys other MCP hosts write in a server entry that this one takes and does not use; and why. */
const IGNORED_HOST_KEYS: Record<string, { schema: Record<string, unknown>; why: string }> = {
  autoApprove: { schema: { type: "array", items: { type: "string" } }, why: "approval is the approve hook's (policy and hooks decide)" },
  alwaysAllow: { schema: { type: "array", items: { type: "string" } }, why: "approval is the approve hook's (policy and hooks decide)" },
  transportType: { schema: { type: "string" }, why: "the transport follows command or url" },
  envFile: { schema: { type: "string" }, why: "VS Code's; put the variables in env, as ${VAR} read from toolsearch's environment" },
};

/**
 * Top-level keys other MCP hosts write beside their servers, so that their files are read as they
 * are: VS Code's `servers` (.vscode/mcp.json) is read as `mcpServers`, the rest is ignored; each
 * present is said in the start summary's notes. Any other unknown key stays an error: a typo of
 * a section (`polciy`) must not be dropped in silence.
 */
export const HOST_SECTIONS: Readonly<Record<string, string>> = {
  servers: "read as mcpServers (VS Code's name for them)",
  inputs: "ignored: VS Code's prompts for ${input:…}; toolsearch reads ${VAR} from its environment",
  globalShortcut: "ignored: a Claude Desktop setting",
  preferences: "ignored: Claude Desktop's app settings",
};
/** The sections that hold server entries, in the order their servers are listed. */
const SERVER_SECTIONS = ["mcpServers", "servers"] as const;

const mcpServerProperties = {
  command: { type: "string", minLength: 1 },
  args: { type: "array", maxItems: 1_000, items: { type: "string" } },
  env: { type: "object", additionalProperties: { type: "string" } },
  cwd: { type: "string", minLength: 1 },
  url: { type: "string", minLength: 1 },
  headers: { type: "object", additionalProperties: { type: "string" } },
  /** As Claude Desktop, Cursor and VS Code write it; the transport follows command or url. */
  type: { enum: ["stdio", "http", "streamable-http", "streamableHttp"] },
  /** Cline, Roo and Windsurf: a disabled server is not started. */
  disabled: { type: "boolean" },
  // Other hosts' keys, accepted so that their configs move over unchanged, and reported as ignored
  // (ignoredHostKeys): approval here is the `approve` hook's.
  ...Object.fromEntries(Object.entries(IGNORED_HOST_KEYS).map(([key, { schema }]) => [key, schema])),
  /** Cline, Roo Code, Gemini CLI, Claude Code: a per-request deadline, read as callTimeoutMs (hostTimeoutMs). */
  timeout: { type: "number", exclusiveMinimum: 0 },
  // The server's own bounds (mcp/options.ts, where they are described and defaulted).
  ...SERVER_ENTRY_OPTIONS,
};
const SERVER_NAME = "^[A-Za-z0-9._-]{1,64}$";

const mcpServersSchema = {
  // if/then/else rather than anyOf: a keyed entry with a typo is told about that entry, not
  // that mcpServers "must be array" because the other form did not match either.
  if: { type: "array" },
  then: {
    type: "array",
    maxItems: 256,
    items: {
      type: "object",
      required: ["name"],
      additionalProperties: false,
      properties: { name: { type: "string", pattern: SERVER_NAME }, ...mcpServerProperties },
      oneOf: [{ required: ["command"] }, { required: ["url"] }],
    },
  },
  else: {
    // The keyed form of Claude Desktop, Cursor, Cline and VS Code: { "memory": { command, args } }.
    type: "object",
    maxProperties: 256,
    propertyNames: { pattern: SERVER_NAME },
    additionalProperties: {
      type: "object",
      additionalProperties: false,
      properties: mcpServerProperties,
      oneOf: [{ required: ["command"] }, { required: ["url"] }],
    },
  },
};

/**
 * The server sections: their ranges and their defaults, each written once, here, as the
 * schema's `default` (ajv fills them in when the sections are checked). Only the defaults that
 * follow something else are computed (resolveServerConfig): the provider's address, key and
 * model (from the environment), mcp.maxSessionsPerTenant (from maxSessions), metrics'
 * exporters (from OTEL_METRICS_EXPORTER).
 */
const sectionsSchema = object(
  {
    provider: providerSchema,
    gateway: gatewaySchema,
    /** Folders of plugin modules, resolved against the config file's folder. */
    plugins: withDefault(arrayOf(string({ minLength: 1 })), []),
    /**
     * The MCP servers whose tools join the catalog: a list of `{ name, command | url, … }`, or the
     * keyed form `{ "<name>": { command | url, … } }` other hosts write; relative paths are the config file's folder's.
     */
    mcpServers: mcpServersSchema,
    /** VS Code's name for mcpServers (.vscode/mcp.json): read as mcpServers, after them. */
    servers: mcpServersSchema,
    mcp: mcpFaceSchema,
    metrics: metricsSchema,
    /** A JSONL session log file (`sessionLog: "file"` or `{ file, recordQueries }` in the config). */
    sessionLog: { anyOf: [string({ minLength: 1 }), sessionLogSchema] },
  },
  // The file's other sections (tools, policy) are checked by validateConfig.
  { additionalProperties: true },
);

/** What the sections' schema fills in: the sections resolveServerConfig reads, with their defaults. */
type FilledSections = Filled<typeof sectionsSchema>;

/**
 * `T`, a section as its schema fills it, as resolveServerConfig leaves it: each key of `C` typed,
 * and present or optional, as `C` says. Mapped over `keyof T` (with `as`), so that each key keeps
 * the doc comment of its schema property.
 */
type Resolved<T, C> = Flat<
  { [K in keyof T as K extends keyof C ? never : K]: T[K] } & { [K in keyof T as K extends RequiredKey<C> ? K : never]-?: C[K & keyof C] } & {
    [K in keyof T as K extends OptionalKey<C> ? K : never]?: Exclude<C[K & keyof C], undefined>;
  }
>;
type OptionalKey<C> = { [K in keyof C]-?: object extends Pick<C, K> ? K : never }[keyof C];
type RequiredKey<C> = Exclude<keyof C, OptionalKey<C>>;
/** One object type instead of an intersection, for readable hovers and errors. */
type Flat<T> = { [K in keyof T]: T[K] } & {};

/** The provider section resolved: its address, key and model from the environment where the file leaves them out, its aliases listed. */
export type ProviderSettings = Resolved<FilledSections["provider"], { baseURL: string; apiKey: string; model: string; models: ModelAlias[] }>;

/** The gateway section resolved: its tokens read (tokenEnv), `--host` and `--port` applied. */
export type GatewaySettings = Resolved<FilledSections["gateway"], { auth?: AuthSettings }>;

/** `gateway.workers`: restarts, cool-down and heartbeats of `serve --workers` (per slot, not shared). */
export type WorkerSupervisionSettings = FilledSections["gateway"]["workers"];

/** The JSONL session log: where, and whether search query text is written (default: only its size). */
export type SessionLogSettings = Required<TypeOf<typeof sessionLogSchema>>;

/** One `gateway.auth.tokens` entry as written in the config file. */
export type AuthTokenEntry = TypeOf<typeof authTokenEntrySchema>;

/** `toolsearch mcp`: who its sessions run as (never taken from the client) and how many it holds; mcpFaceSchema documents each field. */
export type McpFaceSettings = Resolved<FilledSections["mcp"], { maxSessionsPerTenant: number }>;

/** `metrics`, with OTEL_METRICS_EXPORTER's choice filled in where the section says nothing (metricsSettings). */
export type MetricsSettings = Required<FilledSections["metrics"]>;

/** The config file's type: what `serve` and `mcp` both read (`resolveServerConfig`). */
export type ServerConfig = Resolved<
  Omit<FilledSections, "servers">,
  {
    provider: ProviderSettings;
    gateway: GatewaySettings;
    plugins: string[];
    mcpServers: ConfiguredMcpServer[];
    sessionLog?: SessionLogSettings;
    mcp: McpFaceSettings;
    metrics: MetricsSettings;
  }
> & {
  /** `tools.toolSearch`, its snapshot folder resolved against the config file's folder and its key read (indexCacheKeyEnv). */
  toolSearch?: ToolSearchConfig;
  policy?: PolicyConfig;
  /** What the file holds that is accepted but not used (other MCP hosts' keys), for the start summary. */
  notes?: string[];
};

/** A server entry of the config file: how to reach it, and the `mcpServer` options it sets (`connectTimeoutMs`, …). */
export type ConfiguredMcpServer = McpServerConfig & { options?: McpServerOptions };

const checkSections = compileOptions("serverConfig", sectionsSchema);

/** Checks the server sections of a config object (tools.toolSearch and policy are checked by validateConfig). */
export function validateServerSections(config: JsonObject): void {
  checkServerSections(config);
}

/** A copy of `config` with the server sections checked and their defaults filled in. */
function checkServerSections(config: JsonObject): JsonObject & FilledSections {
  const checked = checkSections(config, "config", withoutTokens(config));
  checkTokenEntries(authEntries(config));
  return checked;
}

function authEntries(config: JsonObject): AuthTokenEntry[] {
  const gateway = config.gateway as { auth?: { tokens?: AuthTokenEntry[] } } | undefined;
  return gateway?.auth?.tokens ?? [];
}

/** Exactly one of token / tokenEnv per entry, and no literal token twice (env values are checked once read). */
function checkTokenEntries(entries: readonly AuthTokenEntry[]): void {
  const seen = new Map<string, number>();
  for (const [i, entry] of entries.entries()) {
    if ((entry.token === undefined) === (entry.tokenEnv === undefined)) {
      throw new ConfigInvalidError(`gateway.auth.tokens.${i}: give exactly one of "token" or "tokenEnv"`);
    }
    if (entry.token === undefined) continue;
    const first = seen.get(entry.token);
    if (first !== undefined)
      throw new ConfigInvalidError(`gateway.auth.tokens.${i}: the same token as gateway.auth.tokens.${first}; each token must be different`);
    seen.set(entry.token, i);
  }
}

/** A copy for error messages: a config error must not print a secret to the console or a log. */
function withoutTokens(config: JsonObject): JsonObject {
  const entries = authEntries(config);
  if (!Array.isArray(entries) || entries.length === 0) return config;
  const copy = structuredClone(config);
  const copied = authEntries(copy) as unknown[];
  for (const [i, entry] of copied.entries()) {
    // An entry written as a bare string is most likely the token itself.
    if (typeof entry !== "object" || entry === null) copied[i] = "<redacted>";
    else if ("token" in entry) (entry as AuthTokenEntry).token = "<redacted>";
  }
  return copy;
}

/** Reads each tokenEnv; a missing or empty variable is named. Entries keep only their identity fields. */
function resolveAuth(entries: readonly AuthTokenEntry[], env: NodeJS.ProcessEnv): AuthSettings | undefined {
  if (entries.length === 0) return undefined;
  const tokens = entries.map(({ token, tokenEnv, ...identity }, i): AuthToken => {
    if (token !== undefined) return { token, ...identity };
    const value = env[tokenEnv!];
    if (!value)
      throw new ConfigInvalidError(`gateway.auth.tokens.${i}.tokenEnv: the environment variable ${tokenEnv} is ${value === undefined ? "not set" : "empty"}`);
    if (value.length < MIN_TOKEN_LENGTH)
      throw new ConfigInvalidError(
        `gateway.auth.tokens.${i}.tokenEnv: ${tokenEnv} holds ${value.length} characters; a token needs at least ${MIN_TOKEN_LENGTH}`,
      );
    return { token: value, ...identity };
  });
  checkAuthTokens(tokens);
  return { tokens };
}

/** Where the provider is when neither the file nor the environment says: the scripted provider of `toolsearch demo`, on loopback. */
const LOCAL_PROVIDER = {
  chatBaseURL: "http://127.0.0.1:8787/v1",
  anthropicBaseURL: "http://127.0.0.1:8787",
  apiKey: "not-needed-for-local",
  model: "scripted",
};

/** The provider section with the environment's fallbacks for what the file leaves out. */
function providerSettings({ models, ...provider }: FilledSections["provider"], env: NodeJS.ProcessEnv): ProviderSettings {
  const anthropic = provider.api === "anthropic";
  const model = provider.model ?? env.TOOLSEARCH_MODEL ?? LOCAL_PROVIDER.model;
  return {
    ...provider,
    baseURL:
      provider.baseURL ??
      (anthropic ? env.ANTHROPIC_BASE_URL : env.OPENAI_BASE_URL) ??
      (anthropic ? LOCAL_PROVIDER.anthropicBaseURL : LOCAL_PROVIDER.chatBaseURL),
    apiKey: provider.apiKey ?? (anthropic ? env.ANTHROPIC_API_KEY : env.OPENAI_API_KEY) ?? LOCAL_PROVIDER.apiKey,
    model,
    models: models ? modelAliases(models) : [{ id: model, model }],
  };
}

/** `provider.models` in the order written; `"alias": "model"` is `{ model }`. */
function modelAliases(entries: ModelEntries): ModelAlias[] {
  return Object.entries(entries).map(([id, entry]) => (typeof entry === "string" ? { id, model: entry } : { id, ...entry }));
}

/** What the command line sets over the file (`--port`, `--host`). */
export interface ServerOverrides {
  port?: number;
  host?: string;
  mode?: string;
}

export function resolveServerConfig(raw: JsonObject, configDir: string, env: NodeJS.ProcessEnv = process.env, overrides: ServerOverrides = {}): ServerConfig {
  validateServerSections(raw);
  // What is ignored is not read at all: a `${workspaceFolder}` in VS Code's envFile is no missing variable.
  const config = checkServerSections(substituteEnv(withoutIgnoredHostKeys(raw), env, "") as JsonObject);
  const { provider, gateway, mcp, metrics, plugins } = config;
  if (mcp.maxSessionsPerTenant !== undefined && mcp.maxSessionsPerTenant > mcp.maxSessions) {
    throw new ConfigInvalidError(
      `mcp.maxSessionsPerTenant (${mcp.maxSessionsPerTenant}) is above mcp.maxSessions (${mcp.maxSessions}); a tenant's share cannot be more than the whole`,
    );
  }
  checkWorkerSupervision(gateway.workers);
  const sessionLog = sessionLogSettings(config.sessionLog, configDir);
  const auth = resolveAuth(authEntries(config), env);
  const tools = (config.tools ?? {}) as { toolSearch?: ToolSearchConfig };
  // The snapshot folder, like every path in the file, is relative to the config file's folder.
  const withDir =
    typeof tools.toolSearch === "object" && typeof tools.toolSearch.indexCacheDir === "string"
      ? { ...tools.toolSearch, indexCacheDir: path.resolve(configDir, tools.toolSearch.indexCacheDir) }
      : tools.toolSearch;
  // Its key's variable is read from this env, like tokenEnv, and named when missing.
  const toolSearch = typeof withDir === "object" && withDir.indexCacheKeyEnv !== undefined ? withIndexCacheKey(withDir, env) : withDir;
  const { auth: _entries, ...gatewaySettings } = gateway;
  return {
    ...definedProps({ toolSearch, policy: config.policy as PolicyConfig | undefined }),
    provider: providerSettings(provider, env),
    gateway: {
      ...gatewaySettings,
      host: overrides.host ?? gateway.host,
      port: overrides.port ?? gateway.port,
      ...(auth ? { auth } : {}),
    },
    plugins: plugins.map((folder) => path.resolve(configDir, folder)),
    mcpServers: mcpServerList(config).map((server) => withConfigFolder(server, configDir)),
    ...(sessionLog ? { sessionLog } : {}),
    mcp: { ...mcp, maxSessionsPerTenant: mcp.maxSessionsPerTenant ?? Math.max(1, Math.ceil(mcp.maxSessions / 4)) },
    metrics: metricsSettings(metrics, env),
    notes: ignoredHostKeys(raw),
  };
}

/** The config's `metrics`, with OTEL_METRICS_EXPORTER turning on what the section leaves unset. */
function metricsSettings(metrics: FilledSections["metrics"], env: NodeJS.ProcessEnv): MetricsSettings {
  const asked = new Set((env.OTEL_METRICS_EXPORTER ?? "").split(",").map((name) => name.trim().toLowerCase()));
  const disabled = env.OTEL_SDK_DISABLED?.trim().toLowerCase() === "true";
  return {
    prometheus: metrics.prometheus ?? (!disabled && asked.has("prometheus")),
    otlp: metrics.otlp ?? (!disabled && asked.has("otlp")),
    exportIntervalMs: metrics.exportIntervalMs,
  };
}

/** A kill limit must leave room for the "unresponsive" mark first. */
function checkWorkerSupervision(settings: WorkerSupervisionSettings): void {
  if (settings.killUnresponsiveMs !== 0 && settings.killUnresponsiveMs <= 3 * settings.heartbeatMs) {
    throw new ConfigInvalidError(
      `gateway.workers.killUnresponsiveMs: ${settings.killUnresponsiveMs} must be 0 (never kill) or more than 3 × heartbeatMs (${3 * settings.heartbeatMs}): a worker is marked unresponsive after three missed heartbeats, and only killed later`,
    );
  }
}

/** `sessionLog: "file"` is `{ file }`; the file is relative to the config's folder; query text is off unless asked for. */
function sessionLogSettings(value: unknown, configDir: string): SessionLogSettings | undefined {
  if (value === undefined) return undefined;
  const entry = typeof value === "string" ? { file: value } : (value as { file: string; recordQueries?: boolean });
  return { file: path.resolve(configDir, entry.file), recordQueries: entry.recordQueries ?? false };
}

function withIndexCacheKey(toolSearch: ToolSearchObject, env: NodeJS.ProcessEnv): ToolSearchObject {
  const { indexCacheKeyEnv: _env, ...rest } = toolSearch;
  const key = resolveIndexCacheKey(toolSearch, env);
  return { ...rest, ...definedProps({ indexCacheKey: key }) };
}

type McpServerEntry = Omit<McpServerConfig, "name"> & { name?: string; type?: string; disabled?: boolean; timeout?: number } & McpServerOptions &
  Record<string, unknown>;

/**
 * The `timeout` other hosts write in a server entry, as milliseconds. Every host that has it
 * means a deadline per request to the server, so it is read as `callTimeoutMs`; hosts disagree
 * on the unit. Cline and Roo Code write seconds (their setting goes from 30 s, or 1 s, to one
 * hour: at most 3,600); Gemini CLI and Claude Code write milliseconds (Gemini's default is
 * 600,000). So a value up to 3,600 is taken as seconds and a larger one as milliseconds: no
 * seconds value of those hosts is above 3,600, and a millisecond deadline at or under 3.6 s,
 * which the other reading would give, is not one anybody sets for a tool call. Past
 * callTimeoutMs's bound (one hour) it is cut to it.
 */
function hostTimeoutMs(timeout: number): number {
  const ms = timeout <= MAX_HOST_TIMEOUT_SECONDS ? timeout * 1_000 : timeout;
  return Math.min(MAX_CALL_TIMEOUT_MS, Math.max(1, Math.round(ms)));
}
const MAX_HOST_TIMEOUT_SECONDS = 3_600;
const MAX_CALL_TIMEOUT_MS = 3_600_000;

/**
 * The array form as it is; the keyed form `{ name: { command, … } }` as an array, in key order.
 * Entries marked `disabled: true` are left out; other hosts' keys are dropped here, after
 * `ignoredHostKeys` has said which; the server's options (and `timeout`, as callTimeoutMs unless
 * that is given too) go to `options`.
 */
function mcpServerList(config: JsonObject): ConfiguredMcpServer[] {
  const seen = new Set<string>();
  const servers: ConfiguredMcpServer[] = [];
  for (const { where, entry } of serverEntries(config)) {
    const { type: _type, disabled, timeout, ...server } = entry;
    for (const key of Object.keys(IGNORED_HOST_KEYS)) delete server[key];
    const options: McpServerOptions = {};
    for (const key of Object.keys(SERVER_ENTRY_OPTIONS) as Array<keyof typeof SERVER_ENTRY_OPTIONS>) {
      if (server[key] !== undefined) options[key] = server[key];
      delete server[key];
    }
    if (timeout !== undefined && options.callTimeoutMs === undefined) options.callTimeoutMs = hostTimeoutMs(timeout);
    const name = server.name!;
    if (seen.has(name)) throw new ConfigInvalidError(`${where}: a second server named "${name}"; each name must be different`);
    seen.add(name);
    const configured = server as unknown as McpServerConfig;
    if (disabled !== true) servers.push(Object.keys(options).length > 0 ? { ...configured, options } : configured);
  }
  return servers;
}

/** The server entries of `mcpServers` and `servers`, each with where it is written (`mcpServers.0`, `servers.memory`). */
function serverEntries(config: JsonObject): Array<{ where: string; section: string; entry: McpServerEntry }> {
  return SERVER_SECTIONS.flatMap((section) =>
    mcpServerEntries(config[section]).map((entry, i) => ({ where: `${section}.${Array.isArray(config[section]) ? i : entry.name}`, section, entry })),
  );
}

function mcpServerEntries(value: unknown): McpServerEntry[] {
  if (value === undefined) return [];
  return Array.isArray(value)
    ? (value as McpServerEntry[])
    : Object.entries(value as Record<string, McpServerEntry>).map(([name, server]) => ({ ...server, name }));
}

/**
 * One line per thing the file holds that is accepted for compatibility but not used, or read
 * another way: other hosts' top-level keys, then their server entry keys; for the start summary.
 */
function ignoredHostKeys(raw: JsonObject): string[] {
  return [
    ...Object.keys(HOST_SECTIONS)
      .filter((key) => Object.hasOwn(raw, key))
      .map((key) => `${key} is ${HOST_SECTIONS[key]!}`),
    ...serverEntries(raw).flatMap(({ section, entry }) => [
      ...Object.keys(IGNORED_HOST_KEYS)
        .filter((key) => Object.hasOwn(entry, key))
        .map((key) => `${section}.${entry.name}.${key} is ignored: ${IGNORED_HOST_KEYS[key]!.why}`),
      ...(typeof entry.timeout === "number" ? [timeoutNote(section, entry)] : []),
    ]),
  ];
}

/** The config without other hosts' ignored sections and server entry keys (`servers` stays: it is read). Validated already. */
function withoutIgnoredHostKeys(raw: JsonObject): JsonObject {
  const entryWithout = (entry: JsonObject) => Object.fromEntries(Object.entries(entry).filter(([key]) => !Object.hasOwn(IGNORED_HOST_KEYS, key)));
  const config: JsonObject = {};
  for (const [key, value] of Object.entries(raw)) {
    if ((SERVER_SECTIONS as readonly string[]).includes(key)) {
      config[key] = Array.isArray(value)
        ? (value as JsonObject[]).map(entryWithout)
        : Object.fromEntries(Object.entries(value as Record<string, JsonObject>).map(([name, entry]) => [name, entryWithout(entry)]));
    } else if (!Object.hasOwn(HOST_SECTIONS, key)) config[key] = value;
  }
  return config;
}

function timeoutNote(section: string, entry: McpServerEntry): string {
  const where = `${section}.${entry.name}.timeout`;
  if (entry.callTimeoutMs !== undefined) return `${where} is ignored: callTimeoutMs is given too`;
  const unit = entry.timeout! <= MAX_HOST_TIMEOUT_SECONDS ? "seconds, as Cline and Roo Code write it" : "milliseconds, as Gemini CLI and Claude Code write it";
  return `${where} ${entry.timeout} is read as ${unit}: callTimeoutMs ${hostTimeoutMs(entry.timeout!)}`;
}

/**
 * Relative paths are the config file's, wherever the command is run from: a stdio server runs in
 * the config file's folder (so its relative args resolve there) unless `cwd` says otherwise (a
 * relative `cwd` is resolved against that folder too), and a `command` written as a relative
 * path (`./bin/server`) is resolved against it. A bare command (`npx`) is looked up on PATH.
 */
function withConfigFolder(server: ConfiguredMcpServer, configDir: string): ConfiguredMcpServer {
  if (!("command" in server)) return server;
  const relativeCommand = server.command.startsWith("./") || server.command.startsWith("../");
  return {
    ...server,
    ...(relativeCommand ? { command: path.resolve(configDir, server.command) } : {}),
    cwd: path.resolve(configDir, server.cwd ?? "."),
  };
}

/** `${NAME}` in a config string. `$${` is a literal `${`. */
const VARIABLE = /\$(\$?)\{([^}]*)\}/g;
const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Every `${NAME}` in the config's strings replaced by the environment variable's value; a
 * variable that is not set is a CONFIG_INVALID naming it and where it is used. Keys are left
 * as written. Values are never printed.
 */
export function substituteEnv(value: unknown, env: NodeJS.ProcessEnv, where: string): unknown {
  if (typeof value === "string") {
    if (!value.includes("${")) return value;
    return value.replace(VARIABLE, (_match, escaped: string, name: string) => {
      if (escaped) return `\${${name}}`;
      if (!VARIABLE_NAME.test(name))
        throw new ConfigInvalidError(
          `${where || "config"}: "\${${name.slice(0, 64)}}" is not a variable name (letters, digits, _; write $\${ for a literal \${)`,
        );
      const found = env[name];
      if (found === undefined) throw new ConfigInvalidError(`${where || "config"}: the environment variable ${name} is not set (used as \${${name}})`);
      return found;
    });
  }
  if (Array.isArray(value)) return value.map((item, i) => substituteEnv(item, env, where ? `${where}.${i}` : String(i)));
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, substituteEnv(item, env, where ? `${where}.${key}` : key)]));
  }
  return value;
}
