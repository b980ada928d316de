/**
 * directory: the three control tools, a bounded directory in the instructions, client tools
 * shown directly, and a few likely schemas (picked by searching the prompt) plus required tools.
 * A call to the exact name of a tool that is listed but not declared is resolved from the
 * authorized catalog and takes the same call path.
 */
import type { EffectiveCatalog } from "../catalog/effective-catalog.js";
import type { CatalogEntry } from "../catalog/types.js";
import type { ToolSearchSettings } from "../settings/tool-search-config.js";
import type { RunDispatcher } from "../dispatch/run-dispatcher.js";
import { AmbiguousToolNameError, NameCollisionError, ToolNotFoundError } from "../errors.js";
import { CONTROL_NAMES, TOOLS_MODE_INSTRUCTIONS, toolsModeControlTools } from "./control-tools.js";
import { directCallResult } from "./direct-surface.js";
import { assignFunctionNames, toProviderTool } from "./provider-tool.js";
import { isToolsModeControl, toolsModeHandlers } from "./tools-surface.js";
import { directoryText } from "./directory-text.js";
import type { SurfaceMode } from "./surface.js";

export const directoryMode: SurfaceMode = {
  check: rejectNameCollisions,
  build({ dispatcher, settings, prompt }) {
    const { catalog } = dispatcher;
    // One directory text per admitted catalog: stable across runs, whatever the prompt.
    const directory = catalog.shared("directory", () => directoryText(catalog.catalogEntries(), settings.directory));
    const handlers = toolsModeHandlers(dispatcher);
    const direct = assignFunctionNames(upfrontEntries(dispatcher, settings, prompt), CONTROL_NAMES);
    return {
      tools: [...toolsModeControlTools(settings.maxSearchLimit), ...[...direct].map(([fn, entry]) => toProviderTool(fn, entry))],
      instructions: `${TOOLS_MODE_INSTRUCTIONS}\n\n${directory}`,
      upfrontIds: [...direct.values()].map((entry) => entry.id),
      async handle(name, args, call) {
        if (isToolsModeControl(name)) return handlers[name](args, call);
        const declared = direct.get(name);
        if (declared) return directCallResult(await dispatcher.call(declared.id, args, "direct", call.signal, call.trace));
        const hidden = resolveHiddenName(dispatcher, name);
        return directCallResult(await dispatcher.call(hidden.id, args, "hidden_name", call.signal, call.trace));
      },
    };
  },
};

/**
 * Directory mode shows client tools by name next to a directory of catalog names, so a client
 * tool may not share a name with a catalog tool this run can see. Only visible tools are
 * compared: a collision with a hidden tool must not reveal that it exists.
 */
function rejectNameCollisions(effective: EffectiveCatalog): void {
  const clientNames = new Set([...effective.clientEntries()].map((entry) => entry.name));
  if (clientNames.size === 0) return;
  const clashes = effective.catalogEntries().filter((entry) => clientNames.has(entry.name));
  if (clashes.length > 0) {
    throw new NameCollisionError(
      `Client tool name${clashes.length > 1 ? "s" : ""} ${[...new Set(clashes.map((c) => `"${c.name}"`))].join(", ")} collide${clashes.length > 1 ? "" : "s"} with catalog tool${clashes.length > 1 ? "s" : ""} ${clashes.map((c) => c.id).join(", ")}; rename the client tool.`,
    );
  }
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
      // Weak hits are guesses when nothing matched the prompt: no schema is worth its bytes for them.
      if (hit.weak === true) break;
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
  if (matches.length > 1)
    throw new AmbiguousToolNameError(
      name,
      matches.map((m) => m.id),
    );
  throw new ToolNotFoundError(name, []);
}
