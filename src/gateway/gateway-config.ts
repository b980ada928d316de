/**
 * The gateway's settings: the JSON5 config file's sections, environment fallbacks for the
 * provider (OPENAI_BASE_URL, OPENAI_API_KEY, or ANTHROPIC_BASE_URL, ANTHROPIC_API_KEY when
 * provider.api is "anthropic"; TOOLSEARCH_MODEL), and defaults, in one place.
 */
import path from "node:path";
import { createOptionsAjv, describeAjvErrors } from "../config/ajv.js";
import type { JsonObject } from "../config/dot-path.js";
import type { ToolSearchConfig } from "../config/tool-search-config.js";
import { ConfigInvalidError } from "../errors.js";
import type { McpServerConfig } from "../mcp/options.js";
import type { PolicyConfig } from "../policy/types.js";
import { PROVIDER_APIS, type ProviderApi } from "../provider/wire-types.js";
import { checkAuthTokens, MIN_TOKEN_LENGTH, type AuthSettings, type AuthToken, type TokenIdentity } from "./gateway-auth.js";

export interface ProviderSettings {
  /** Which API the provider speaks: OpenAI Chat Completions (default), OpenAI Responses, or Anthropic Messages. */
  api: ProviderApi;
  /** For "chat" and "responses" the URL ends with /v1; for "anthropic" it is the host (the client adds /v1/messages). */
  baseURL: string;
  apiKey: string;
  model: string;
  timeoutMs: number;
  /** Anthropic's required max_tokens (default 4096). */
  maxTokens?: number;
  /** A provider answer over this many bytes fails the turn (PROVIDER_FAILED) instead of being read whole (default 16 MiB). */
  maxResponseBytes: number;
}

export interface GatewaySettings {
  host: string;
  port: number;
  /** Provider round trips per agent turn before the turn is cut. */
  maxTurns: number;
  maxBodyBytes: number;
  /** Bearer tokens and the identity each carries; without it the gateway binds loopback only. */
  auth?: AuthSettings;
}

/** One `gateway.auth.tokens` entry as written in the config file. */
export interface AuthTokenEntry extends TokenIdentity {
  token?: string;
  /** The name of an environment variable holding the token, read when the config is resolved. */
  tokenEnv?: string;
}

export interface GatewayConfig {
  toolSearch?: ToolSearchConfig;
  policy?: PolicyConfig;
  provider: ProviderSettings;
  gateway: GatewaySettings;
  /** Folders of plugin modules, resolved against the config file's folder. */
  plugins: string[];
  mcpServers: McpServerConfig[];
  /** A JSONL session log file. */
  sessionLog?: string;
}

const text = { type: "string", minLength: 1, maxLength: 256 };
const authSchema = {
  type: "object",
  additionalProperties: false,
  required: ["tokens"],
  properties: {
    tokens: {
      type: "array",
      minItems: 1,
      maxItems: 1_000,
      items: {
        type: "object",
        additionalProperties: false,
        properties: {
          token: { type: "string", minLength: MIN_TOKEN_LENGTH, maxLength: 4_096 },
          tokenEnv: { type: "string", pattern: "^[A-Za-z_][A-Za-z0-9_]*$" },
          agentId: text,
          owner: { type: "boolean" },
          channels: { type: "array", minItems: 1, uniqueItems: true, items: text },
          modes: { type: "array", minItems: 1, uniqueItems: true, items: { enum: ["direct", "code", "tools", "directory"] } },
        },
      },
    },
  },
};

const sectionsSchema = {
  type: "object",
  properties: {
    provider: {
      type: "object",
      additionalProperties: false,
      properties: {
        api: { enum: [...PROVIDER_APIS] },
        baseURL: { type: "string", minLength: 1 },
        apiKey: { type: "string" },
        model: { type: "string", minLength: 1 },
        timeoutMs: { type: "integer", minimum: 100, maximum: 600_000 },
        maxTokens: { type: "integer", minimum: 1, maximum: 1_000_000 },
        maxResponseBytes: { type: "integer", minimum: 1024, maximum: 1024 * 1024 * 1024 },
      },
    },
    gateway: {
      type: "object",
      additionalProperties: false,
      properties: {
        host: { type: "string", minLength: 1 },
        port: { type: "integer", minimum: 0, maximum: 65_535 },
        maxTurns: { type: "integer", minimum: 1, maximum: 100 },
        maxBodyBytes: { type: "integer", minimum: 1024, maximum: 64 * 1024 * 1024 },
        auth: authSchema,
      },
    },
    plugins: { type: "array", items: { type: "string", minLength: 1 } },
    mcpServers: {
      type: "array",
      items: {
        type: "object",
        required: ["name"],
        additionalProperties: false,
        properties: {
          name: { type: "string", minLength: 1 },
          command: { type: "string", minLength: 1 },
          args: { type: "array", items: { type: "string" } },
          env: { type: "object", additionalProperties: { type: "string" } },
          cwd: { type: "string" },
          url: { type: "string", minLength: 1 },
          headers: { type: "object", additionalProperties: { type: "string" } },
        },
        oneOf: [{ required: ["command"] }, { required: ["url"] }],
      },
    },
    sessionLog: { type: "string", minLength: 1 },
  },
};

const validateSections = createOptionsAjv().compile(sectionsSchema);

/** Checks the gateway sections of a config object (tools.toolSearch and policy are checked by validateConfig). */
export function validateGatewaySections(config: JsonObject): void {
  if (!validateSections(config)) throw new ConfigInvalidError(describeAjvErrors("config", validateSections.errors, withoutTokens(config)));
  checkTokenEntries(authEntries(config));
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
    if (first !== undefined) throw new ConfigInvalidError(`gateway.auth.tokens.${i}: the same token as gateway.auth.tokens.${first}; each token must be different`);
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
    if (!value) throw new ConfigInvalidError(`gateway.auth.tokens.${i}.tokenEnv: the environment variable ${tokenEnv} is ${value === undefined ? "not set" : "empty"}`);
    if (value.length < MIN_TOKEN_LENGTH) throw new ConfigInvalidError(`gateway.auth.tokens.${i}.tokenEnv: ${tokenEnv} holds ${value.length} characters; a token needs at least ${MIN_TOKEN_LENGTH}`);
    return { token: value, ...identity };
  });
  checkAuthTokens(tokens);
  return { tokens };
}

function providerSettings(provider: Partial<ProviderSettings>, env: NodeJS.ProcessEnv): ProviderSettings {
  const api = provider.api ?? "chat";
  const anthropic = api === "anthropic";
  return {
    api,
    baseURL: provider.baseURL ?? (anthropic ? env.ANTHROPIC_BASE_URL : env.OPENAI_BASE_URL) ?? (anthropic ? "http://127.0.0.1:8787" : "http://127.0.0.1:8787/v1"),
    apiKey: provider.apiKey ?? (anthropic ? env.ANTHROPIC_API_KEY : env.OPENAI_API_KEY) ?? "not-needed-for-local",
    model: provider.model ?? env.TOOLSEARCH_MODEL ?? "scripted",
    timeoutMs: provider.timeoutMs ?? 60_000,
    maxResponseBytes: provider.maxResponseBytes ?? 16 * 1024 * 1024,
    ...(provider.maxTokens !== undefined ? { maxTokens: provider.maxTokens } : {}),
  };
}

export interface GatewayOverrides {
  port?: number;
  host?: string;
  mode?: string;
}

export function resolveGatewayConfig(config: JsonObject, configDir: string, env: NodeJS.ProcessEnv = process.env, overrides: GatewayOverrides = {}): GatewayConfig {
  validateGatewaySections(config);
  const provider = (config.provider ?? {}) as Partial<ProviderSettings>;
  const gateway = (config.gateway ?? {}) as Partial<Omit<GatewaySettings, "auth">>;
  const auth = resolveAuth(authEntries(config), env);
  const tools = (config.tools ?? {}) as { toolSearch?: ToolSearchConfig };
  return {
    ...(tools.toolSearch !== undefined ? { toolSearch: tools.toolSearch } : {}),
    ...(config.policy !== undefined ? { policy: config.policy as PolicyConfig } : {}),
    provider: providerSettings(provider, env),
    gateway: {
      host: overrides.host ?? gateway.host ?? "127.0.0.1",
      port: overrides.port ?? gateway.port ?? 8788,
      maxTurns: gateway.maxTurns ?? 8,
      maxBodyBytes: gateway.maxBodyBytes ?? 1024 * 1024,
      ...(auth ? { auth } : {}),
    },
    plugins: ((config.plugins ?? []) as string[]).map((folder) => path.resolve(configDir, folder)),
    mcpServers: (config.mcpServers ?? []) as McpServerConfig[],
    ...(typeof config.sessionLog === "string" ? { sessionLog: path.resolve(configDir, config.sessionLog) } : {}),
  };
}
