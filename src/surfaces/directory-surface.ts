/**
 * directory: the three control tools, a bounded directory in the instructions, client tools
 * shown directly, and a few likely schemas (picked by searching the prompt) plus required tools.
 * A call to the exact name of a tool that is listed but not declared is resolved from the
 * authorized catalog and takes the same call path.
 */
import type { CatalogEntry } from "../catalog/types.js";
import type { ToolSearchSettings } from "../config/tool-search-config.js";
import type { RunDispatcher } from "../dispatch/run-dispatcher.js";
import { AmbiguousToolNameError, ToolNotFoundError } from "../errors.js";
import { CONTROL_NAMES, STRUCTURED_INSTRUCTIONS, structuredControlTools } from "./control-tools.js";
import { directCallResult } from "./direct-surface.js";
import { assignFunctionNames, toProviderTool } from "./provider-tool.js";
import { isStructuredControl, structuredHandlers } from "./structured-surface.js";
import type { Surface } from "./surface.js";

export interface DirectoryInput {
  dispatcher: RunDispatcher;
  settings: ToolSearchSettings;
  /** The directory text for this effective catalog (cached by the engine). */
  directory: string;
  prompt?: string;
}

export function directorySurface({ dispatcher, settings, directory, prompt }: DirectoryInput): Surface {
  const handlers = structuredHandlers(dispatcher);
  const direct = assignFunctionNames(upfrontEntries(dispatcher, settings, prompt), CONTROL_NAMES);
  return {
    tools: [...structuredControlTools(settings.maxSearchLimit), ...[...direct].map(([fn, entry]) => toProviderTool(fn, entry))],
    instructions: `${STRUCTURED_INSTRUCTIONS}\n\n${directory}`,
    upfrontIds: [...direct.values()].map((entry) => entry.id),
    async handle(name, args, call) {
      if (isStructuredControl(name)) return handlers[name](args, call);
      const declared = direct.get(name);
      if (declared) return directCallResult(await dispatcher.call(declared.id, args, "direct", call.signal, call.trace));
      const hidden = resolveHiddenName(dispatcher, name);
      return directCallResult(await dispatcher.call(hidden.id, args, "hidden_name", call.signal, call.trace));
    },
  };
}

/** Client tools, tools marked required, then the likely ones for this prompt (bounded). */
function upfrontEntries(dispatcher: RunDispatcher, settings: ToolSearchSettings, prompt: string | undefined): CatalogEntry[] {
  const { catalog } = dispatcher;
  const chosen = new Map<string, CatalogEntry>();
  for (const entry of catalog.clientEntries()) chosen.set(entry.id, entry);
  for (const entry of catalog.catalogEntries()) if (entry.definition.required === true) chosen.set(entry.id, entry);
  const likely = settings.directory.likelySchemas;
  if (prompt && likely > 0) {
    let added = 0;
    for (const hit of dispatcher.rank(prompt, settings.directory.maxLikelySchemas)) {
      if (added >= likely) break;
      const entry = catalog.get(hit.id);
      if (!entry || chosen.has(entry.id) || entry.source === "client") continue;
      chosen.set(entry.id, entry);
      added += 1;
    }
  }
  return [...chosen.values()];
}

/** Exactly one authorized tool with this name, else a clear error. Hidden tools stay not found. */
function resolveHiddenName(dispatcher: RunDispatcher, name: string): CatalogEntry {
  const matches = [...dispatcher.catalog.entries()].filter((entry) => entry.name === name);
  if (matches.length === 1) return matches[0]!;
  if (matches.length > 1) throw new AmbiguousToolNameError(name, matches.map((m) => m.id));
  throw new ToolNotFoundError(name, []);
}
