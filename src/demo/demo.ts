/**
 * `npm start`, the main job on embedded defaults: the scripted provider and a gateway over a
 * large built-in catalog (real MCP servers over stdio plus a generated plugin), the same
 * requests in every mode, compared. Progress on stderr, the table on stdout; leaves nothing running.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pluginTools } from "../catalog/sources.js";
import type { ToolSearchMode } from "../settings/tool-search-config.js";
import { resolveServerConfig } from "../config/server-config.js";
import { startGateway } from "../gateway/gateway-server.js";
import { startMockProvider } from "../mock-provider/mock-provider.js";
import type { RunTelemetry } from "../telemetry/types.js";
import { builtinMcpServers } from "./builtin-servers.js";
import { syntheticTools } from "./synthetic-catalog.js";

export interface DemoOptions {
  tools: number;
  modes: readonly ToolSearchMode[];
  log: (line: string) => void;
}

export interface ModeReport {
  request: string;
  mode: string;
  declaredTools: number;
  firstRequestBytes: number;
  totalRequestBytes: number;
  roundTrips: number;
  ms: number;
  searches: number;
  describes: number;
  calls: number;
  finalTool?: string;
  finalSource?: string;
  ok: boolean;
}

/** One request for a plugin tool, one for a real MCP server's tool. */
const DEMO_REQUESTS = ["Get the weather forecast for Paris using the mapping service.", "Get the sum of two numbers."];

/** Enough for the two requests of a direct-mode turn at the 64 MiB body limit, twice over. */
const DEMO_RECORDED_BYTES = 256 * 1024 * 1024;

export async function runDemo(options: DemoOptions): Promise<ModeReport[]> {
  const workDir = mkdtempSync(path.join(tmpdir(), "toolsearch-main-"));
  // Whatever fails, everything started is closed and the folder removed: the demo never hangs.
  const opened: Array<{ close(): Promise<void> }> = [];
  try {
    // A direct-mode turn over a large generated catalog is tens of MiB: keep whole turns.
    const provider = await startMockProvider({ maxRecordedBytes: DEMO_RECORDED_BYTES });
    opened.push(provider);
    options.log(`scripted provider on ${provider.url}`);
    const started = performance.now();
    const { servers, skipped } = builtinMcpServers(workDir);
    for (const pkg of skipped) options.log(`skipped the ${pkg} MCP server: not installed (npm install ${pkg} to include it)`);
    const config = resolveServerConfig(
      { tools: { toolSearch: true }, provider: { baseURL: provider.url }, gateway: { port: 0 }, mcpServers: servers, sessionLog: "session.jsonl" },
      workDir,
    );
    const plugin = pluginTools(
      "acme",
      syntheticTools(options.tools).map((t) => t.definition),
    );
    const gateway = await startGateway(config, { sources: [plugin] });
    opened.unshift(gateway);
    const status = gateway.engine.catalogStatus();
    options.log(`gateway on ${gateway.url} in ${Math.round(performance.now() - started)} ms; catalog ${status.size} tools:`);
    for (const s of status.sources) options.log(`  ${s.source}:${s.toolset} ${s.ok ? `${s.tools} tools` : `DOWN (${s.error})`}`);
    const reports: ModeReport[] = [];
    for (const [i, request] of DEMO_REQUESTS.entries()) {
      for (const mode of options.modes) {
        options.log(`request ${i + 1}/${DEMO_REQUESTS.length} in ${mode} mode…`);
        reports.push(await runOnce(gateway.url, provider, request, mode, `main-${i}-${mode}`));
      }
    }
    return reports;
  } finally {
    for (const thing of opened) await thing.close().catch(() => {});
    rmSync(workDir, { recursive: true, force: true });
  }
}

async function runOnce(
  url: string,
  provider: Awaited<ReturnType<typeof startMockProvider>>,
  request: string,
  mode: ToolSearchMode,
  sessionId: string,
): Promise<ModeReport> {
  const mark = provider.received();
  const started = performance.now();
  const response = await fetch(`${url}/v1/runs`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ sessionId, input: request, mode }),
  });
  const body = (await response.json()) as { mode?: string; roundTrips?: number; telemetry?: RunTelemetry; error?: { message: string } };
  const ms = performance.now() - started;
  const sent = provider.requestsSince(mark);
  const telemetry = body.telemetry;
  const final = telemetry?.calls.at(-1);
  return {
    request,
    mode: body.mode ?? mode,
    declaredTools: telemetry?.upfront.declaredTools ?? 0,
    firstRequestBytes: sent[0]?.bytes ?? 0,
    totalRequestBytes: sent.reduce((sum, r) => sum + r.bytes, 0),
    roundTrips: sent.length,
    ms,
    searches: telemetry?.counts.search ?? 0,
    describes: telemetry?.counts.describe ?? 0,
    calls: telemetry?.counts.call ?? 0,
    ...(final ? { finalTool: final.id, finalSource: final.source } : {}),
    ok: response.ok && final?.ok === true,
  };
}

export function formatReports(reports: readonly ModeReport[]): string {
  const header = [
    "request",
    "mode",
    "tools declared",
    "first request bytes",
    "total bytes",
    "round trips",
    "wall ms",
    "search/describe/call",
    "final tool",
    "source",
  ];
  const rows = reports.map((r) => [
    String(DEMO_REQUESTS.indexOf(r.request) + 1),
    r.mode,
    String(r.declaredTools),
    r.firstRequestBytes.toLocaleString("en-US"),
    r.totalRequestBytes.toLocaleString("en-US"),
    String(r.roundTrips),
    r.ms.toFixed(0),
    `${r.searches}/${r.describes}/${r.calls}`,
    `${r.finalTool ?? "-"}${r.ok ? "" : " (failed)"}`,
    r.finalSource ?? "-",
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(" | ")} |`;
  const legend = DEMO_REQUESTS.map((r, i) => `request ${i + 1}: "${r}"`).join("\n");
  return [legend, "", line(header), `|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`, ...rows.map(line)].join("\n");
}
