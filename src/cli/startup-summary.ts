/**
 * What `serve` and `mcp` print on stderr once the engine has started: the catalog by source, the
 * sandbox layers, each other source that is down and why, the command's own `extra` lines. MCP
 * servers tell their own state as it happens (source-log.ts): ready, still connecting, down and
 * why, back. The "why" ends with an MCP server's last stderr lines: it is the operator's, so it
 * is printed and never shown to a client (/healthz leaves it out).
 */
import type { SourceStatus } from "../catalog/catalog.js";
import { escapeControl } from "../text/prompt-text.js";
import type { ToolSearchEngine } from "../engine/engine.js";
import type { ServerConfig } from "../config/server-config.js";

const MAX_REASON_CHARS = 400;

export async function startupSummary(engine: ToolSearchEngine, command: string, extra: readonly string[] = []): Promise<string[]> {
  const { size, sources } = engine.catalogStatus();
  const parts = sources.map((s) => `${s.source === "core" ? "core" : `${s.source}:${s.toolset}`} ${s.ok ? s.tools : "down"}`);
  const lines = [
    `toolsearch ${command}: catalog ${size} tool${size === 1 ? "" : "s"}${parts.length > 0 ? ` (${parts.join(", ")})` : " (no sources: add plugins or mcpServers to the config)"}; mode ${engine.settings.mode}`,
  ];
  lines.push(`toolsearch ${command}: ${await sandboxLine(engine)}`);
  // MCP servers said why already, as it happened (source-log.ts).
  for (const s of sources) {
    if (s.ok || s.source === "mcp") continue;
    lines.push(downLine(command, s));
  }
  for (const line of extra) lines.push(`toolsearch ${command}: ${line}`);
  return lines;
}

function sourceLabel(s: SourceStatus): string {
  return `${s.source === "mcp" ? "MCP server" : s.source} "${s.toolset}"`;
}

function downLine(command: string, s: SourceStatus): string {
  return `toolsearch ${command}: warning: ${sourceLabel(s)} is down: ${escapeControl(reasonOf(s.error ?? "unknown reason"))}`;
}

async function sandboxLine(engine: ToolSearchEngine): Promise<string> {
  // The pool starts only for code mode; other modes never run model code.
  if (engine.settings.mode !== "code") return `sandbox: not used (mode ${engine.settings.mode})`;
  const report = await engine.sandboxReport();
  if (!report.available) return `sandbox: unavailable (${report.reason ?? "unknown reason"}); code mode falls back to tools mode`;
  const on = Object.entries(report.layers)
    .filter(([, active]) => active)
    .map(([layer]) => layer);
  const off = Object.entries(report.layers)
    .filter(([, active]) => !active)
    .map(([layer]) => layer);
  return `sandbox: node ${report.nodeVersion}, layers ${on.join(", ") || "none"}${off.length > 0 ? `; missing ${off.join(", ")}` : ""}`;
}

/** One line: the message without stack frames, whitespace collapsed, bounded. */
export function reasonOf(message: string): string {
  const text = message
    .split("\n")
    .filter((line) => !/^\s+at\s/.test(line))
    .join(" ")
    .replace(/\s+/g, " ")
    .trim();
  return text.length > MAX_REASON_CHARS ? `${text.slice(0, MAX_REASON_CHARS - 3)}...` : text;
}

/** Keys of the config file that are accepted but not used, as start-summary lines. */
export function configNotes(config: ServerConfig): string[] {
  return (config.notes ?? []).map((note) => `note: ${note}`);
}

/**
 * Where the operator looks, as start-summary lines: the console and the admin API (unless
 * gateway.admin is false), `/metrics` and OTLP when metrics are on. `base` is the server's
 * origin (none for `mcp` over stdio, which serves no HTTP: only OTLP applies there).
 */
export function operatorLines(config: ServerConfig, base: string | undefined): string[] {
  const lines: string[] = [];
  if (base !== undefined && config.gateway.admin) {
    lines.push(`console ${base}/console/, admin API ${base}/admin/v1 (${config.gateway.auth ? "owner tokens" : "loopback clients"} only)`);
  }
  if (base !== undefined && config.metrics.prometheus) lines.push(`metrics ${base}/metrics (Prometheus text format)`);
  if (config.metrics.otlp) lines.push(`metrics over OTLP every ${config.metrics.exportIntervalMs / 1000}s`);
  return lines;
}
