/**
 * What `mcpServer(config, options)` accepts, described by the schemas below and checked once at
 * the entry: a bad value is a ConfigInvalidError that names the option, the value and its type.
 */
import { compileOptions } from "../validation/ajv.js";
import { arrayOf, declared, int, object, oneOf, recordOf, string, withDefault, withoutDefaults, type Filled, type TypeOf } from "../validation/typed-schema.js";
import { ConfigInvalidError } from "../errors.js";
import { definedProps } from "../defined.js";

/** What `mcpServer(config, options)` takes besides the config: each bound with its range and default. */
const optionsSchema = object({
  /**
   * How long `start()` (the engine's start) waits for the server before going on without it; a
   * server not ready by then keeps starting in the background and its tools join the catalog when
   * it is. Also bounds each reconnect of a server that was ready before, and a re-list. Default 10,000 ms.
   */
  connectTimeoutMs: withDefault(int(1, 600_000), 10_000),
  /**
   * Bounds one whole start of a server that has not been ready yet: spawn (for `npx -y <server>`
   * on a cold cache, the package install), initialize, and every page of `tools/list`. A start
   * past it is stopped gently and tried again later. Default 60,000 ms.
   */
  startupTimeoutMs: withDefault(int(1, 3_600_000), 60_000),
  /** Per-call timeout sent to the SDK (the engine's own call timeout also applies). Default 60,000 ms. */
  callTimeoutMs: withDefault(int(1, 3_600_000), 60_000),
  /**
   * Calls sent to the server at once; more wait in a queue shared fairly by tenants. Default 1 for
   * stdio, 4 for Streamable HTTP (see DEFAULT_MAX_CONCURRENT_CALLS; defaulted by resolveMcpOptions, as it follows the transport).
   */
  maxConcurrentCalls: int(1, 1_000),
  /** Calls one tenant may have waiting for a slot; one more fails at once with TOOL_BUSY. Default 64. */
  maxQueuedCallsPerTenant: withDefault(int(1, 10_000), 64),
  /**
   * Calls in a row that time out before the server's circuit breaker opens: its calls then fail at
   * once (TOOL_UNAVAILABLE, saying when it is tried again) until a ping answers. 0: never. Default 3.
   */
  breakerTimeouts: withDefault(int(0, 1_000), 3),
  /**
   * The first delay before a server that is down is tried again (a reconnect, or a probe of an
   * open breaker); each failure in a row doubles it, with jitter, up to `retryMaxDelayMs`. Default 1,000 ms.
   */
  retryMinDelayMs: withDefault(int(1, 3_600_000), 1_000),
  /** The longest delay between two tries of a server that is down. Default 60,000 ms. */
  retryMaxDelayMs: withDefault(int(1, 86_400_000), 60_000),
  /** Descriptions longer than this are cut (after control characters are stripped). Default 2,000. */
  maxDescriptionChars: withDefault(int(16, 100_000), 2_000),
  /**
   * An input schema whose JSON is longer than this is replaced by `{ type: "object" }` and the
   * description says so; an output schema that large is dropped. Default 32,768.
   */
  maxSchemaBytes: withDefault(int(256, 10_000_000), 32_768),
  /** Tools past this many (over all pages) are left out. Default 5,000. */
  maxTools: withDefault(int(1, 100_000), 5_000),
  /** `notifications/tools/list_changed` within this window cause one re-list. Default 100 ms. */
  listChangedDebounceMs: withDefault(int(0, 60_000), 100),
  /**
   * The least time between the starts of two listings of one server (re-lists after
   * `tools/list_changed`, and the listing at connect). Notifications meanwhile only mark a
   * re-list as pending, so a server that floods notifications costs at most one re-list, and
   * one catalog rebuild and re-index, per interval. Default 2,000 ms.
   */
  minRelistIntervalMs: withDefault(int(0, 3_600_000), 2_000),
  /**
   * The largest message taken from the server, in bytes (a stdio line, an HTTP JSON body, one
   * SSE event). A larger one is dropped unread as it arrives: the request it answers fails at
   * once naming this limit (a call: TOOL_FAILED; a re-list: the previous list is kept).
   * Default 8 MiB.
   */
  // Below 64 KiB a server could not even answer initialize with a long instructions text.
  maxMessageBytes: withDefault(int(65_536, 1_073_741_824), 8 * 1024 * 1024),
  /** How long a liveness ping (after a transport error, or probing an open breaker) may take. Default 5,000 ms. */
  healthCheckTimeoutMs: withDefault(int(1, 600_000), 5_000),
  /**
   * stdio only: the child's stderr. "capture" (default) keeps the last few KB so that a
   * server that dies is reported with its last words; "inherit" passes it through; "ignore" drops it.
   */
  stderr: withDefault(oneOf(["capture", "inherit", "ignore"]), "capture"),
  /** stdio only: after stdin is closed, how long the server gets to exit before its process group gets SIGTERM. Default 1,000 ms. */
  killGraceMs: withDefault(int(0, 60_000), 1_000),
  /**
   * stdio only: after SIGTERM, how long the process group gets before SIGKILL. npm rolls back a
   * half-done install on SIGTERM (`npx -y` stopped mid-install), which SIGKILL would cut short,
   * leaving a broken cache behind. Default 5,000 ms.
   */
  termGraceMs: withDefault(int(0, 600_000), 5_000),
});

/** mcpServer's options, each optional: optionsSchema documents each one, its range and default. */
export type McpServerOptions = TypeOf<typeof optionsSchema>;

/** The options resolved: every one present (maxConcurrentCalls filled in by resolveMcpOptions, by transport). */
export type ResolvedMcpOptions = Required<Filled<typeof optionsSchema>>;

/**
 * Calls in flight per server when the options do not say. A stdio server is one process on one
 * pipe, and most are one event loop (Node) or run their tools one at a time (Python tools written
 * as plain functions): calls past the first queue inside the child, first come first served,
 * where no tenant's share can be kept; so one call at a time, the rest waiting here in a queue
 * that tenants share fairly. A Streamable HTTP server is usually a web server that answers
 * requests side by side; a few at a time, still bounded so that one tenant's burst waits here.
 */
const DEFAULT_MAX_CONCURRENT_CALLS = { stdio: 1, http: 4 } as const;

/** The options a server entry of the config file may set, with their ranges (server-config.ts takes them from here): their defaults are mcpServer's to fill. */
const { connectTimeoutMs, startupTimeoutMs, callTimeoutMs, maxConcurrentCalls, maxQueuedCallsPerTenant } = withoutDefaults(optionsSchema).properties;
export const SERVER_ENTRY_OPTIONS = { connectTimeoutMs, startupTimeoutMs, callTimeoutMs, maxConcurrentCalls, maxQueuedCallsPerTenant };

const checkOptions = compileOptions("mcpServerOptions", optionsSchema);
let defaults: Readonly<ResolvedMcpOptions> | undefined;

/**
 * The defaults of a stdio server (an HTTP server's maxConcurrentCalls is
 * DEFAULT_MAX_CONCURRENT_CALLS.http); worked out when first asked for, not at import.
 */
export function defaultMcpOptions(): Readonly<ResolvedMcpOptions> {
  defaults ??= Object.freeze({ ...checkOptions({}, "mcpServer options"), maxConcurrentCalls: DEFAULT_MAX_CONCURRENT_CALLS.stdio });
  return defaults;
}

/** The config as the source uses it: one of two shapes, checked. */
export type ResolvedMcpConfig =
  | { kind: "stdio"; name: string; command: string; args: readonly string[]; env?: Record<string, string>; cwd?: string }
  | { kind: "http"; name: string; url: URL; headers: Record<string, string> };

const NAME = "^[A-Za-z0-9._-]{1,64}$";
const nonEmpty = string({ minLength: 1, description: "a non-empty string" });
const strings = recordOf(string(), { description: "an object of string values" });
const name = string({ pattern: NAME, description: '1-64 characters of letters, digits, ".", "_" or "-"' });

/** A server the engine starts as a child process and talks to over stdio. */
const stdioConfigSchema = object(
  {
    /** The server's name: part of every tool id (`mcp:<name>:<tool>`); 1-64 letters, digits, ".", "_", "-". */
    name,
    /** The program to run, e.g. `process.execPath` or `"uvx"`; not run through a shell. */
    command: nonEmpty,
    args: arrayOf(string(), { description: "an array of strings" }),
    /**
     * Added to the few variables the child inherits (HOME, LOGNAME, PATH, SHELL, TERM, USER, as
     * the SDK's stdio transport does); the rest of this process's environment is not passed.
     */
    env: strings,
    cwd: nonEmpty,
  },
  { required: ["name", "command"] },
);

/** A server reached over Streamable HTTP. */
const httpConfigSchema = object(
  {
    /** The server's name: part of every tool id (`mcp:<name>:<tool>`); 1-64 letters, digits, ".", "_", "-". */
    name,
    /** `http:` or `https:` URL of the server's MCP endpoint (a URL is checked as its href). */
    url: declared<string | URL>()(string({ description: "an http: or https: URL" })),
    /** Sent with every request (e.g. `Authorization`); never included in messages. */
    headers: strings,
  },
  { required: ["name", "url"] },
);

/** A server the engine starts as a child process and talks to over stdio: stdioConfigSchema documents each key. */
export type McpStdioServerConfig = TypeOf<typeof stdioConfigSchema>;
/** A server reached over Streamable HTTP: httpConfigSchema documents each key. */
export type McpHttpServerConfig = TypeOf<typeof httpConfigSchema>;
export type McpServerConfig = McpStdioServerConfig | McpHttpServerConfig;

/** Each key of `properties`, admitting any value: a branch's keys, their values checked by the whole schema's `properties`. */
const keysOf = (properties: object) => Object.fromEntries(Object.keys(properties).map((key) => [key, {}]));

/**
 * Either shape, told apart by `command`: each key checked once, and a key of the other shape
 * refused. Its type is declared: TypeOf does not read if/then/else; the checked value has a name,
 * the keys of one shape or the other, and its URL as an href.
 */
const configSchema = declared<{ name: string; url?: string } & Partial<McpStdioServerConfig> & Partial<Omit<McpHttpServerConfig, "url">>>()({
  type: "object",
  description: "an object with name and command or url",
  required: ["name"],
  properties: { ...stdioConfigSchema.properties, ...httpConfigSchema.properties },
  if: { required: ["command"] },
  then: { properties: keysOf(stdioConfigSchema.properties), additionalProperties: false },
  else: { properties: keysOf(httpConfigSchema.properties), additionalProperties: false },
});
const checkConfig = compileOptions("mcpServerConfig", configSchema);

export function resolveMcpConfig(config: unknown): ResolvedMcpConfig {
  const raw = config as Partial<McpHttpServerConfig> | undefined;
  const named = typeof raw?.name === "string" && new RegExp(NAME).test(raw.name);
  const where = named ? `mcpServer "${raw.name}"` : "mcpServer";
  // String values under env and headers (secrets, often) are not quoted.
  const hide = (values: unknown) =>
    typeof values === "object" && values !== null
      ? Object.fromEntries(Object.entries(values).map(([k, v]) => [k, typeof v === "string" ? "<not shown>" : v]))
      : values;
  const shown = typeof raw === "object" && raw !== null ? { ...raw, env: hide((raw as { env?: unknown }).env), headers: hide(raw.headers) } : raw;
  if (named && ((raw as { command?: unknown }).command === undefined) === (raw.url === undefined)) {
    throw new ConfigInvalidError(`${where}: give exactly one of command (stdio) or url (Streamable HTTP)`);
  }
  const c = checkConfig(raw?.url instanceof URL ? { ...raw, url: raw.url.href } : config, where, shown);
  if (c.command !== undefined) {
    return {
      kind: "stdio",
      name: c.name,
      command: c.command,
      args: c.args ?? [],
      ...definedProps({ env: c.env, cwd: c.cwd }),
    };
  }
  const url = c.url !== undefined && URL.canParse(c.url) ? new URL(c.url) : undefined;
  if (url?.protocol !== "http:" && url?.protocol !== "https:") {
    throw new ConfigInvalidError(`${where}.url: must be an http: or https: URL; got ${url ? `protocol ${JSON.stringify(url.protocol)}` : "(unparsable URL)"}`);
  }
  return { kind: "http", name: c.name, url, headers: c.headers ?? {} };
}

export function resolveMcpOptions(options: unknown, config: ResolvedMcpConfig): ResolvedMcpOptions {
  const where = `mcpServer "${config.name}" options`;
  const checked = checkOptions(options ?? {}, where);
  if (checked.retryMaxDelayMs < checked.retryMinDelayMs) {
    throw new ConfigInvalidError(`${where}: retryMaxDelayMs (${checked.retryMaxDelayMs}) is below retryMinDelayMs (${checked.retryMinDelayMs})`);
  }
  return { ...checked, maxConcurrentCalls: checked.maxConcurrentCalls ?? DEFAULT_MAX_CONCURRENT_CALLS[config.kind] };
}
