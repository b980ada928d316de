/** `toolsearch tools`: the effective catalog by source, each source's state and tools, as one caller would see it. */
import type { SourceStatus } from "../catalog/catalog.js";
import type { ToolListing } from "../dispatch/types.js";
import type { ToolSearchEngine } from "../engine/engine.js";
import { escapeControl } from "../text/prompt-text.js";
import { IDENTITY_USAGE, openCatalogEngine, subjectOf, type IdentityOptions } from "./catalog-engine.js";
import { reasonOf } from "./startup-summary.js";
import { UsageError, type CommandIo } from "./usage.js";

export const TOOLS_USAGE = `Usage: toolsearch tools [--config FILE] [--source S] [--agent ID] [--profile NAME] [--channel NAME] [--owner] [--json]

  Lists the catalog the config describes (plugins, mcpServers), source by source: its state
  (ok, or down and why), its tool count and its tools with their one-line descriptions.
  Without an identity every tool is listed, policy not applied; with one, exactly the tools a
  run with that identity may see.
  --source S       One source: its name (memory), or kind and name (mcp:memory, plugin:sample, core).
${IDENTITY_USAGE}
  --json           One JSON object on stdout: { size, sources: [{ source, toolset, ok, tools, error?, list }] }.
  --config FILE    The config file (default: ./toolsearch.config.json5).`;

export interface ToolsOptions extends IdentityOptions {
  config?: string;
  source?: string;
  json?: boolean;
}

interface SourceView extends Omit<SourceStatus, "error"> {
  error?: string;
  list: ToolListing[];
}

export async function toolsCommand(options: ToolsOptions, io: CommandIo): Promise<number> {
  const engine = await openCatalogEngine(options.config, io, "tools");
  try {
    const views = sourceViews(engine, options);
    if (options.json) {
      io.out(JSON.stringify({ size: views.reduce((n, v) => n + v.tools, 0), sources: views }, null, 2));
      return 0;
    }
    for (const line of toolsText(views, options)) io.out(line);
    return 0;
  } finally {
    await engine.close();
  }
}

function sourceViews(engine: ToolSearchEngine, options: ToolsOptions): SourceView[] {
  const subject = subjectOf(options);
  const statuses = engine.catalogStatus().sources;
  const chosen = options.source === undefined ? statuses : statuses.filter((s) => namesSource(options.source!, s));
  if (chosen.length === 0) {
    const known = statuses.map((s) => `${s.source}:${s.toolset}`).join(", ") || "none: the config has no plugins or mcpServers";
    throw new UsageError(`no source "${options.source}"; sources: ${known}`, TOOLS_USAGE);
  }
  return chosen.map(({ error, ...status }) => {
    const { total, tools } = engine.listTools(subject, { source: status.source, toolset: status.toolset });
    return { ...status, tools: total, ...(error !== undefined ? { error: reasonOf(error) } : {}), list: tools };
  });
}

/** "memory", "mcp:memory", "core". */
function namesSource(name: string, status: SourceStatus): boolean {
  return name === status.toolset || name === `${status.source}:${status.toolset}` || name === status.source;
}

function toolsText(views: readonly SourceView[], options: ToolsOptions): string[] {
  const subject = subjectOf(options);
  const size = views.reduce((n, v) => n + v.tools, 0);
  const whose = subject
    ? `as ${Object.entries(subject)
        .map(([k, v]) => (v === true ? k : `${k} ${JSON.stringify(v)}`))
        .join(", ")}`
    : "policy not applied";
  const lines = [`${size} tool${size === 1 ? "" : "s"} in ${views.length} source${views.length === 1 ? "" : "s"} (${whose})`];
  if (!subject) lines.push("  --agent, --profile, --channel or --owner show what one caller's runs may see.");
  const nameWidth = Math.min(40, Math.max(8, ...views.flatMap((v) => v.list.map((t) => t.name.length))));
  for (const view of views) {
    lines.push("");
    const state = view.ok ? `ok, ${view.tools} tool${view.tools === 1 ? "" : "s"}` : `DOWN: ${escapeControl(view.error ?? "unknown reason")}`;
    lines.push(`${view.source}:${view.toolset}  ${state}`);
    for (const tool of view.list) {
      const flags = tool.ownerOnly ? " [owner only]" : "";
      lines.push(`  ${escapeControl(tool.name).padEnd(nameWidth)}  ${escapeControl(tool.summary)}${flags}`);
    }
  }
  return lines;
}
