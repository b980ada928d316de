/**
 * Plugins for the gateway: a folder of ES modules, each exporting its tool definitions, as
 * `export default { id, tools }` or `export const tools = [...]` (id = the file's name).
 */
import { readdirSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { pluginTools, type CatalogSource } from "../catalog/sources.js";
import type { ToolDefinition } from "../catalog/types.js";
import { ConfigInvalidError } from "../errors.js";

const MODULE = /\.(mjs|js)$/;

export async function loadPluginFolder(folder: string): Promise<CatalogSource[]> {
  let files: string[];
  try {
    files = readdirSync(folder)
      .filter((f) => MODULE.test(f))
      .sort();
  } catch (error) {
    throw new ConfigInvalidError(`plugins: cannot read folder ${folder}: ${(error as Error).message}`);
  }
  return Promise.all(files.map((file) => loadPluginModule(path.join(folder, file))));
}

async function loadPluginModule(file: string): Promise<CatalogSource> {
  const mod = (await import(pathToFileURL(file).href)) as { default?: { id?: unknown; tools?: unknown }; tools?: unknown };
  const id = typeof mod.default?.id === "string" ? mod.default.id : path.basename(file).replace(MODULE, "");
  const tools = mod.default?.tools ?? mod.tools;
  if (!Array.isArray(tools)) throw new ConfigInvalidError(`plugin ${file}: export default { id, tools: [...] } or export const tools = [...]`);
  return pluginTools(id, tools as ToolDefinition[]);
}
