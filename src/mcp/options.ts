/**
 * What `mcpServer(config, options)` accepts, described by the schemas below and checked once at
 * the entry: a bad value is a ConfigInvalidError that names the option, the value and its type.
 */
import { compileOptions, int } from "../validation/ajv.js";
import { ConfigInvalidError } from "../errors.js";

/** A server the engine starts as a child process and talks to over stdio. */
export interface McpStdioServerConfig {
  /** The server's name: part of every tool id (`mcp:<name>:<tool>`); 1-64 letters, digits, ".", "_", "-". */
  name: string;
  /** The program to run, e.g. `process.execPath` or `"uvx"`; not run through a shell. */
  command: string;
  args?: string[];
  /**
   * Added to the few variables the child inherits (HOME, LOGNAME, PATH, SHELL, TERM, USER, as
   * the SDK's stdio transport does); the rest of this process's environment is not passed.
   */
  env?: Record<string, string>;
  cwd?: string;
}

/** A server reached over Streamable HTTP. */
export interface McpHttpServerConfig {
  name: string;
  /** `http:` or `https:` URL of the server's MCP endpoint. */
  url: string | URL;
  /** Sent with every request (e.g. `Authorization`); never included in messages. */
  headers?: Record<string, string>;
}

export type McpServerConfig = McpStdioServerConfig | McpHttpServerConfig;

export interface McpServerOptions {
  /** Bounds `start()`: spawn or first request, initialize, and listing every page of tools. Default 10,000 ms. */
  connectTimeoutMs?: number;
  /** Per-call timeout sent to the SDK (the engine's own call timeout also applies). Default 60,000 ms. */
  callTimeoutMs?: number;
  /** Descriptions longer than this are cut (after control characters are stripped). Default 2,000. */
  maxDescriptionChars?: number;
  /**
   * An input schema whose JSON is longer than this is replaced by `{ type: "object" }` and the
   * description says so; an output schema that large is dropped. Default 32,768.
   */
  maxSchemaBytes?: number;
  /** Tools past this many (over all pages) are left out. Default 5,000. */
  maxTools?: number;
  /** `notifications/tools/list_changed` within this window cause one re-list. Default 100 ms. */
  listChangedDebounceMs?: number;
  /**
   * The least time between the starts of two listings of one server (re-lists after
   * `tools/list_changed`, and the listing at connect). Notifications meanwhile only mark a
   * re-list as pending, so a server that floods notifications costs at most one re-list, and
   * one catalog rebuild and re-index, per interval. Default 2,000 ms.
   */
  minRelistIntervalMs?: number;
  /**
   * The largest message taken from the server, in bytes (a stdio line, an HTTP JSON body, one
   * SSE event). A larger one is dropped unread as it arrives: the request it answers fails at
   * once naming this limit (a call: TOOL_FAILED; a re-list: the previous list is kept).
   * Default 8 MiB.
   */
  maxMessageBytes?: number;
  /** How long a liveness ping (after a transport error) may take before the server counts as gone. Default 5,000 ms. */
  healthCheckTimeoutMs?: number;
  /**
   * stdio only: the child's stderr. "capture" (default) keeps the last few KB so that a
   * server that dies is reported with its last words; "inherit" passes it through; "ignore" drops it.
   */
  stderr?: "capture" | "inherit" | "ignore";
  /** stdio only: after stdin is closed, how long the child gets before SIGTERM, then SIGKILL. Default 1,000 ms. */
  killGraceMs?: number;
}

export type ResolvedMcpOptions = Required<McpServerOptions>;

const optionsSchema = {
  type: "object",
  additionalProperties: false,
  properties: {
    connectTimeoutMs: int(1, 600_000, 10_000),
    callTimeoutMs: int(1, 3_600_000, 60_000),
    maxDescriptionChars: int(16, 100_000, 2_000),
    maxSchemaBytes: int(256, 10_000_000, 32_768),
    maxTools: int(1, 100_000, 5_000),
    listChangedDebounceMs: int(0, 60_000, 100),
    minRelistIntervalMs: int(0, 3_600_000, 2_000),
    // Below 64 KiB a server could not even answer initialize with a long instructions text.
    maxMessageBytes: int(65_536, 1_073_741_824, 8 * 1024 * 1024),
    healthCheckTimeoutMs: int(1, 600_000, 5_000),
    stderr: { enum: ["capture", "inherit", "ignore"], default: "capture" },
    killGraceMs: int(0, 60_000, 1_000),
  },
};
const checkOptions = compileOptions<ResolvedMcpOptions>(optionsSchema);
export const DEFAULT_MCP_OPTIONS: Readonly<ResolvedMcpOptions> = Object.freeze(checkOptions({}, "mcpServer options"));

/** The config as the source uses it: one of two shapes, checked. */
export type ResolvedMcpConfig =
  | { kind: "stdio"; name: string; command: string; args: string[]; env?: Record<string, string>; cwd?: string }
  | { kind: "http"; name: string; url: URL; headers: Record<string, string> };

const NAME = "^[A-Za-z0-9._-]{1,64}$";
const nonEmpty = { type: "string", minLength: 1, description: "a non-empty string" };
const strings = { type: "object", additionalProperties: { type: "string" }, description: "an object of string values" };
const configSchema = {
  type: "object",
  description: "an object with name and command or url",
  required: ["name"],
  properties: {
    name: { type: "string", pattern: NAME, description: '1-64 characters of letters, digits, ".", "_" or "-"' },
    command: nonEmpty,
    args: { type: "array", items: { type: "string" }, description: "an array of strings" },
    env: strings,
    cwd: nonEmpty,
    url: { type: "string", description: "an http: or https: URL" },
    headers: strings,
  },
  if: { required: ["command"] },
  then: { properties: { name: true, command: true, args: true, env: true, cwd: true }, additionalProperties: false },
  else: { properties: { name: true, url: true, headers: true }, additionalProperties: false },
};
const checkConfig = compileOptions<McpStdioServerConfig & McpHttpServerConfig & { url?: string }>(configSchema);

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
      ...(c.env !== undefined ? { env: c.env } : {}),
      ...(c.cwd !== undefined ? { cwd: c.cwd } : {}),
    };
  }
  const url = c.url !== undefined && URL.canParse(c.url) ? new URL(c.url) : undefined;
  if (url?.protocol !== "http:" && url?.protocol !== "https:") {
    throw new ConfigInvalidError(`${where}.url: must be an http: or https: URL; got ${url ? `protocol ${JSON.stringify(url.protocol)}` : "(unparsable URL)"}`);
  }
  return { kind: "http", name: c.name, url, headers: c.headers ?? {} };
}

export function resolveMcpOptions(options: unknown, name: string): ResolvedMcpOptions {
  return checkOptions(options ?? {}, `mcpServer "${name}" options`);
}
