/**
 * The gateway's settings: the JSON5 config file's sections, environment fallbacks for the
 * provider (OPENAI_BASE_URL, OPENAI_API_KEY, TOOLSEARCH_MODEL), and defaults, in one place.
 */
import path from "node:path";
import { createOptionsAjv, describeAjvErrors } from "../config/ajv.js";
import type { JsonObject } from "../config/dot-path.js";
import type { ToolSearchConfig } from "../config/tool-search-config.js";
import { ConfigInvalidError } from "../errors.js";
import type { McpServerConfig } from "../mcp/options.js";
import type { PolicyConfig } from "../policy/types.js";

export interface ProviderSettings {
  baseURL: string;
  apiKey: string;
  model: string;
  timeoutMs: number;
}

export interface GatewaySettings {
  host: string;
  port: number;
  /** Provider round trips per agent turn before the turn is cut. */
  maxTurns: number;
  maxBodyBytes: number;
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

const sectionsSchema = {
  type: "object",
  properties: {
    provider: {
      type: "object",
      additionalProperties: false,
      properties: {
        baseURL: { type: "string", minLength: 1 },
        apiKey: { type: "string" },
        model: { type: "string", minLength: 1 },
        timeoutMs: { type: "integer", minimum: 100, maximum: 600_000 },
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
  if (!validateSections(config)) throw new ConfigInvalidError(describeAjvErrors("config", validateSections.errors, config));
}

export interface GatewayOverrides {
  port?: number;
  host?: string;
  mode?: string;
}

export function resolveGatewayConfig(config: JsonObject, configDir: string, env: NodeJS.ProcessEnv = process.env, overrides: GatewayOverrides = {}): GatewayConfig {
  validateGatewaySections(config);
  const provider = (config.provider ?? {}) as Partial<ProviderSettings>;
  const gateway = (config.gateway ?? {}) as Partial<GatewaySettings>;
  const tools = (config.tools ?? {}) as { toolSearch?: ToolSearchConfig };
  return {
    ...(tools.toolSearch !== undefined ? { toolSearch: tools.toolSearch } : {}),
    ...(config.policy !== undefined ? { policy: config.policy as PolicyConfig } : {}),
    provider: {
      baseURL: provider.baseURL ?? env.OPENAI_BASE_URL ?? "http://127.0.0.1:8787/v1",
      apiKey: provider.apiKey ?? env.OPENAI_API_KEY ?? "not-needed-for-local",
      model: provider.model ?? env.TOOLSEARCH_MODEL ?? "scripted",
      timeoutMs: provider.timeoutMs ?? 60_000,
    },
    gateway: {
      host: overrides.host ?? gateway.host ?? "127.0.0.1",
      port: overrides.port ?? gateway.port ?? 8788,
      maxTurns: gateway.maxTurns ?? 8,
      maxBodyBytes: gateway.maxBodyBytes ?? 1024 * 1024,
    },
    plugins: ((config.plugins ?? []) as string[]).map((folder) => path.resolve(configDir, folder)),
    mcpServers: (config.mcpServers ?? []) as McpServerConfig[],
    ...(typeof config.sessionLog === "string" ? { sessionLog: path.resolve(configDir, config.sessionLog) } : {}),
  };
}
