/**
 * The directory of directory mode: one line per trusted (core and plugin) tool,
 * `name (toolset): one-line description`, bounded by maxChars with a footer that counts what was
 * left out. MCP and client tools are not listed: MCP text is untrusted, client tools are direct.
 * The text depends only on the effective catalog and the settings, never on the prompt, so a
 * provider's prompt cache keeps working across turns.
 */
import type { CatalogEntry } from "../catalog/types.js";
import type { DirectorySettings } from "../settings/tool-search-config.js";
import { oneLine, stripControl } from "../text/prompt-text.js";

const HEADER = "Tool directory (call tool_search to find more, tool_describe for a schema; a listed name can also be called directly):";

export function directoryText(entries: readonly CatalogEntry[], settings: DirectorySettings): string {
  const trusted = entries.filter((e) => e.source === "core" || e.source === "plugin");
  const untrusted = entries.length - trusted.length;
  const lines: string[] = [HEADER];
  // Reserve room for the longest footer so the whole text never exceeds maxChars.
  const budget = settings.maxChars - footer(entries.length, untrusted).length - 1;
  let used = HEADER.length;
  let listed = 0;
  for (const entry of trusted) {
    const line = `${stripControl(entry.name)} (${stripControl(entry.toolset)}): ${oneLine(entry.definition.description, settings.descriptionChars)}`;
    if (used + 1 + line.length > budget) break;
    lines.push(line);
    used += 1 + line.length;
    listed += 1;
  }
  const omitted = trusted.length - listed;
  if (omitted > 0 || untrusted > 0) lines.push(footer(omitted, untrusted));
  return lines.join("\n");
}

function footer(omitted: number, untrusted: number): string {
  const parts = [];
  if (omitted > 0) parts.push(`${omitted} more tool${omitted === 1 ? "" : "s"} not listed`);
  if (untrusted > 0) parts.push(`${untrusted} MCP tool${untrusted === 1 ? "" : "s"} not listed`);
  return `… ${parts.join("; ")}. Use tool_search to find them.`;
}
