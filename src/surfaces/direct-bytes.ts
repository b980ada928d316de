/**
 * What direct mode would have sent for a run: the byte length of the `tools` JSON a direct
 * surface declares over the run's effective catalog, the yardstick every other mode's
 * up-front bytes are compared with (telemetry's `upfront.directBytes`, the console's "bytes
 * saved"). Counted, not built: each tool is measured once per catalog entry (the engine does
 * the catalog's at start, `measureDirectBytes`), and a run adds up its admitted tools' counts
 * once per admitted catalog, so a run pays a lookup, not a 10,000-schema JSON.stringify.
 *
 * Each tool is counted under its own name. Where two admitted tools share a name, direct mode
 * declares them as `<toolset>__<name>` instead: the figure is then short by those prefixes, a
 * few bytes per clash, which is why the names are not assigned here (that is a pass over every
 * admitted tool per run that no figure this size needs).
 */
import type { EffectiveCatalog } from "../catalog/effective-catalog.js";
import type { CatalogEntry } from "../catalog/types.js";
import { toProviderTool } from "./provider-tool.js";

/** The bytes of `{"type":"function","function":{"name":…,"description":…,"parameters":…}}` around the three values. */
const TOOL_FRAME_BYTES = Buffer.byteLength(JSON.stringify(toProviderTool("", { definition: { description: "", inputSchema: {} } } as CatalogEntry))) - 6;

/** Per entry: the UTF-8 bytes of its declaration (entries are rebuilt when their source changes, and measured again). */
const toolBytes = new WeakMap<CatalogEntry, number>();

/** The bytes of one tool as direct mode declares it (its own name). */
function directToolBytes(entry: CatalogEntry): number {
  let bytes = toolBytes.get(entry);
  if (bytes === undefined) {
    const { description, inputSchema } = entry.definition;
    const name = entry.name.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, 64) || "tool";
    bytes = TOOL_FRAME_BYTES + name.length + 2 + Buffer.byteLength(JSON.stringify(description) ?? "") + Buffer.byteLength(JSON.stringify(inputSchema) ?? "");
    toolBytes.set(entry, bytes);
  }
  return bytes;
}

/** Measures entries ahead of the first run that needs them (the engine's start, over the whole catalog). */
export function measureDirectBytes(entries: readonly CatalogEntry[]): void {
  for (const entry of entries) directToolBytes(entry);
}

function arrayParts(entries: Iterable<CatalogEntry>): { bytes: number; count: number } {
  let bytes = 0;
  let count = 0;
  for (const entry of entries) {
    bytes += directToolBytes(entry);
    count += 1;
  }
  return { bytes, count };
}

/** The bytes of the tools JSON direct mode would declare for this run's catalog, its client tools included. */
export function directBytesOf(catalog: EffectiveCatalog): number {
  const shared = catalog.shared("direct-bytes", () => arrayParts(catalog.catalogEntries()));
  const client = catalog.clientIds.size > 0 ? arrayParts(catalog.clientEntries()) : { bytes: 0, count: 0 };
  const count = shared.count + client.count;
  // "[" and "]", and a comma between each two tools.
  return 2 + shared.bytes + client.bytes + Math.max(0, count - 1);
}
