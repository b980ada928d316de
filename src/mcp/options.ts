/**
 * What `mcpServer(config, options)` accepts, checked once at the entry: a bad value is a
 * ConfigInvalidError that names the option, the value and its type.
 */
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

export const DEFAULT_MCP_OPTIONS: ResolvedMcpOptions = {
  connectTimeoutMs: 10_000,
  callTimeoutMs: 60_000,
  maxDescriptionChars: 2_000,
  maxSchemaBytes: 32_768,
  maxTools: 5_000,
  listChangedDebounceMs: 100,
  minRelistIntervalMs: 2_000,
  maxMessageBytes: 8 * 1024 * 1024,
  healthCheckTimeoutMs: 5_000,
  stderr: "capture",
  killGraceMs: 1_000,
};

/** The config as the source uses it: one of two shapes, checked. */
export type ResolvedMcpConfig =
  | { kind: "stdio"; name: string; command: string; args: string[]; env?: Record<string, string>; cwd?: string }
  | { kind: "http"; name: string; url: URL; headers: Record<string, string> };

const NAME_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;

export function resolveMcpConfig(config: unknown): ResolvedMcpConfig {
  if (!isObject(config)) throw bad("mcpServer: config must be an object with name and command or url", config);
  const { name } = config;
  if (typeof name !== "string" || !NAME_PATTERN.test(name)) {
    throw new ConfigInvalidError(`mcpServer: name must be 1-64 characters of letters, digits, ".", "_" or "-"; got ${show(name)} (${typeName(name)})`);
  }
  const where = `mcpServer "${name}"`;
  const hasCommand = config.command !== undefined;
  const hasUrl = config.url !== undefined;
  if (hasCommand === hasUrl) throw new ConfigInvalidError(`${where}: give exactly one of command (stdio) or url (Streamable HTTP)`);
  if (hasCommand) {
    const { command, args, env, cwd } = config;
    if (typeof command !== "string" || command.length === 0) throw bad(`${where}: command must be a non-empty string`, command);
    if (args !== undefined && (!Array.isArray(args) || !args.every((a) => typeof a === "string"))) throw bad(`${where}: args must be an array of strings`, args);
    if (env !== undefined && !isStringRecord(env)) throw new ConfigInvalidError(`${where}: env must be an object of string values; got ${typeName(env)}`);
    if (cwd !== undefined && (typeof cwd !== "string" || cwd.length === 0)) throw bad(`${where}: cwd must be a non-empty string`, cwd);
    forbidExtra(config, ["name", "command", "args", "env", "cwd"], where);
    return {
      kind: "stdio",
      name,
      command,
      args: [...((args as string[] | undefined) ?? [])],
      ...(env !== undefined ? { env: { ...(env as Record<string, string>) } } : {}),
      ...(cwd !== undefined ? { cwd: cwd as string } : {}),
    };
  }
  const { url, headers } = config;
  let parsed: URL;
  try {
    parsed = url instanceof URL ? new URL(url.href) : new URL(String(url));
  } catch {
    throw bad(`${where}: url must be an http: or https: URL`, typeof url === "string" ? "(unparsable URL)" : url);
  }
  if ((typeof url !== "string" && !(url instanceof URL)) || (parsed.protocol !== "http:" && parsed.protocol !== "https:")) {
    throw new ConfigInvalidError(`${where}: url must be an http: or https: URL; got protocol ${JSON.stringify(parsed.protocol)}`);
  }
  if (headers !== undefined && !isStringRecord(headers)) throw new ConfigInvalidError(`${where}: headers must be an object of string values`);
  forbidExtra(config, ["name", "url", "headers"], where);
  return { kind: "http", name, url: parsed, headers: { ...((headers as Record<string, string> | undefined) ?? {}) } };
}

export function resolveMcpOptions(options: unknown, name: string): ResolvedMcpOptions {
  if (options === undefined) return { ...DEFAULT_MCP_OPTIONS };
  const where = `mcpServer "${name}" options`;
  if (!isObject(options)) throw bad(`${where} must be an object`, options);
  forbidExtra(options, Object.keys(DEFAULT_MCP_OPTIONS), where);
  const resolved: ResolvedMcpOptions = { ...DEFAULT_MCP_OPTIONS };
  const integer = (key: Exclude<keyof ResolvedMcpOptions, "stderr">, min: number, max: number): void => {
    const value = options[key];
    if (value === undefined) return;
    if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
      throw bad(`${where}: ${key} must be an integer from ${min} to ${max}`, value);
    }
    resolved[key] = value;
  };
  integer("connectTimeoutMs", 1, 600_000);
  integer("callTimeoutMs", 1, 3_600_000);
  integer("maxDescriptionChars", 16, 100_000);
  integer("maxSchemaBytes", 256, 10_000_000);
  integer("maxTools", 1, 100_000);
  integer("listChangedDebounceMs", 0, 60_000);
  integer("minRelistIntervalMs", 0, 3_600_000);
  // Below 64 KiB a server could not even answer initialize with a long instructions text.
  integer("maxMessageBytes", 65_536, 1_073_741_824);
  integer("healthCheckTimeoutMs", 1, 600_000);
  integer("killGraceMs", 0, 60_000);
  const { stderr } = options;
  if (stderr !== undefined) {
    if (stderr !== "capture" && stderr !== "inherit" && stderr !== "ignore") throw bad(`${where}: stderr must be "capture", "inherit" or "ignore"`, stderr);
    resolved.stderr = stderr;
  }
  return resolved;
}

function forbidExtra(object: Record<string, unknown>, allowed: readonly string[], where: string): void {
  const extra = Object.keys(object).filter((key) => !allowed.includes(key));
  if (extra.length > 0) throw new ConfigInvalidError(`${where}: unknown option ${extra.map((k) => JSON.stringify(k)).join(", ")}; allowed: ${allowed.join(", ")}`);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isStringRecord(value: unknown): boolean {
  return isObject(value) && Object.values(value).every((v) => typeof v === "string");
}

function bad(message: string, value: unknown): ConfigInvalidError {
  return new ConfigInvalidError(`${message}; got ${show(value)} (${typeName(value)})`);
}

function show(value: unknown): string {
  if (typeof value === "function") return "a function";
  try {
    const text = JSON.stringify(value) ?? String(value);
    return text.length > 80 ? `${text.slice(0, 77)}...` : text;
  } catch {
    return String(value);
  }
}

function typeName(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}
