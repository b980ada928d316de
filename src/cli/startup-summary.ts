/** What `serve` and `mcp` print on stderr at start: the catalog by source, the sandbox layers, each MCP server that is down and why, and the command's own `extra` lines. */
import type { ToolSearchEngine } from "../engine/engine.js";
import type { GatewayConfig } from "../gateway/gateway-config.js";

const MAX_REASON_CHARS = 400;

export async function startupSummary(engine: ToolSearchEngine, command: string, extra: readonly string[] = []): Promise<string[]> {
  const { size, sources } = engine.catalogStatus();
  const parts = sources.map((s) => `${s.source === "core" ? "core" : `${s.source}:${s.owner}`} ${s.ok ? s.tools : "down"}`);
  const lines = [`toolsearch ${command}: catalog ${size} tool${size === 1 ? "" : "s"}${parts.length > 0 ? ` (${parts.join(", ")})` : " (no sources: add plugins or mcpServers to the config)"}; mode ${engine.settings.mode}`];
  lines.push(`toolsearch ${command}: ${await sandboxLine(engine)}`);
  for (const s of sources) {
    if (s.ok) continue;
    lines.push(`toolsearch ${command}: warning: ${s.source === "mcp" ? "MCP server" : s.source} "${s.owner}" is down: ${reasonOf(s.error ?? "unknown reason")}`);
  }
  for (const line of extra) lines.push(`toolsearch ${command}: ${line}`);
  return lines;
}

async function sandboxLine(engine: ToolSearchEngine): Promise<string> {
  // The pool starts only for code mode; other modes never run model code.
  if (engine.settings.mode !== "code") return `sandbox: not used (mode ${engine.settings.mode})`;
  const report = await engine.sandboxReport();
  if (!report.available) return `sandbox: unavailable (${report.reason ?? "unknown reason"}); code mode falls back to tools mode`;
  const on = Object.entries(report.layers).filter(([, active]) => active).map(([layer]) => layer);
  const off = Object.entries(report.layers).filter(([, active]) => !active).map(([layer]) => layer);
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
export function configNotes(config: GatewayConfig): string[] {
  return (config.notes ?? []).map((note) => `note: ${note}`);
}
