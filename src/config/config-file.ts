/**
 * The JSON5 config file (`toolsearch.config.json5` by default). Reading validates it; writing
 * validates first, then writes a temporary file and renames it over the old one, so the file
 * is never left half-written or invalid. (Comments are not preserved: json5 has no
 * comment-keeping writer.)
 */
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import JSON5 from "json5";
import { ConfigInvalidError } from "../errors.js";
import { HOST_SECTIONS, validateServerSections } from "./server-config.js";
import { parsePolicy } from "../policy/policy-schema.js";
import type { JsonObject } from "./dot-path.js";
import { resolveToolSearchConfig } from "../settings/tool-search-config.js";
import { writeFileAtomicSync } from "../state/atomic-write.js";

const DEFAULT_CONFIG_FILE = "toolsearch.config.json5";

/** Top-level sections the project knows; others are typos. */
const SECTIONS = new Set(["tools", "policy", "provider", "gateway", "plugins", "mcpServers", "sessionLog", "mcp", "metrics"]);

export function configPath(file: string | undefined): string {
  return resolve(file ?? DEFAULT_CONFIG_FILE);
}

/**
 * The config a command runs with: `--config FILE` must exist (a typo must not start an empty
 * gateway); without it, ./toolsearch.config.json5 is used when present, else `{}`.
 */
export function loadConfig(explicit: string | undefined): { file: string; config: JsonObject } {
  const file = configPath(explicit);
  if (explicit !== undefined && !existsSync(file)) throw new ConfigInvalidError(`config file ${file} does not exist`);
  return { file, config: readConfigFile(file) };
}

/** The parsed file, `{}` when it does not exist; a file that does not parse or validate throws CONFIG_INVALID. */
export function readConfigFile(file: string): JsonObject {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return {};
    throw new ConfigInvalidError(`Cannot read config file ${file}: ${(error as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON5.parse(text);
  } catch (error) {
    throw new ConfigInvalidError(`${file} is not valid JSON5: ${(error as Error).message}`);
  }
  validateConfig(parsed, file);
  return parsed;
}

export function validateConfig(config: unknown, where = "config"): asserts config is JsonObject {
  if (typeof config !== "object" || config === null || Array.isArray(config)) throw new ConfigInvalidError(`${where}: the config must be an object`);
  for (const key of Object.keys(config)) {
    if (!SECTIONS.has(key) && !Object.hasOwn(HOST_SECTIONS, key)) {
      throw new ConfigInvalidError(
        `${where}: unknown section "${key}"; known: ${[...SECTIONS].join(", ")} (and, from other MCP hosts' files: ${Object.keys(HOST_SECTIONS).join(", ")})`,
      );
    }
  }
  const c = config as JsonObject;
  if (c.tools !== undefined) {
    if (typeof c.tools !== "object" || c.tools === null || Array.isArray(c.tools)) throw new ConfigInvalidError("tools: must be an object");
    const tools = c.tools as JsonObject;
    for (const key of Object.keys(tools)) if (key !== "toolSearch") throw new ConfigInvalidError(`tools: unknown option "${key}"; known: toolSearch`);
    if (tools.toolSearch !== undefined) resolveToolSearchConfig(tools.toolSearch);
  }
  if (c.policy !== undefined) parsePolicy(c.policy);
  validateServerSections(c);
}

export function writeConfigFile(file: string, config: JsonObject): void {
  validateConfig(config, file);
  mkdirSync(dirname(file), { recursive: true });
  writeFileAtomicSync(file, `${JSON5.stringify(config, null, 2)}\n`);
}
