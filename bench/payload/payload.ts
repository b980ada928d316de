/**
 * Payload: what the model is sent. For each catalog (generated ones of growing size, and the
 * 527 real MCP tools of LiveMCPBench) and each mode, one scripted agent turn through the real
 * gateway: the bytes (and o200k tokens) of the first provider request, which holds the tools
 * and instructions, and of every request of the turn, discovery round trips included. Direct
 * mode is the baseline every ratio divides by. Then the crossover: the smallest catalog where a
 * search mode's whole turn is smaller than direct's, found by bisection over catalog sizes.
 * Builds its catalogs with the demo's generator and reads the scripted provider's requests on purpose: imports src/demo/, src/mock-provider/ directly.
 */
import { pluginTools, type CatalogSource, type ToolSearchMode } from "../../src/index.js";
import { syntheticTools } from "../../src/demo/synthetic-catalog.js";
import type { RecordedRequest } from "../../src/mock-provider/mock-provider.js";
import { isExpectedTool } from "../harness/expected.js";
import type { Progress } from "../harness/progress.js";
import { startScriptedStack } from "../harness/stack.js";
import { ratio, round } from "../harness/stats.js";
import { countTokens, TOKENIZER } from "../harness/tokens.js";
import { liveMcpSources, loadLiveMcpServers } from "./livemcp-source.js";

export const PAYLOAD_MODES: readonly ToolSearchMode[] = ["direct", "code", "tools", "directory"];
export type SearchMode = Exclude<ToolSearchMode, "direct">;

/**
 * The scripted request. It names synthetic tool #0 (`crm_create_contact`), which every
 * generated catalog has, from 1 tool up: sizes compare like with like.
 */
export const SYNTHETIC_REQUEST = { input: "Create a new contact in the customer relationship manager.", expected: "plugin:acme:crm_create_contact" };
/** The request for the real MCP catalog: the reference `time` server's tool. */
const MCP_REQUEST = { input: "Get the current time in a specific timezone.", expected: "mcp:time:get_current_time" };

export interface ModePayload {
  /** The mode asked for. */
  requested: ToolSearchMode;
  /** The mode the run used (code falls back to tools when the sandbox cannot start). */
  mode: ToolSearchMode;
  declaredTools: number;
  upfrontSchemas: number;
  toolsBytes: number;
  instructionsBytes: number;
  firstRequestBytes: number;
  firstRequestTokens: number;
  turnBytes: number;
  turnTokens: number;
  roundTrips: number;
  finalTool: string | null;
  /** Divided by direct mode's figure for the same catalog. */
  firstRequestRatio: number;
  turnRatio: number;
  ms: number;
}

export interface CatalogPayload {
  catalog: string;
  kind: "synthetic" | "mcp";
  tools: number;
  request: string;
  expectedTool: string;
  modes: ModePayload[];
}

export interface Crossover {
  mode: SearchMode;
  /** Smallest catalog size where this mode sends fewer bytes over the whole turn than direct; null if none up to the largest size. */
  turnBytes: number | null;
  /** The same for the first request alone (tools + instructions). */
  firstRequestBytes: number | null;
}

/** Bytes per mode for one generated catalog size (the crossover search's probes included). */
export interface SizePoint {
  tools: number;
  firstRequestBytes: Record<ToolSearchMode, number>;
  turnBytes: Record<ToolSearchMode, number>;
}

export interface PayloadResult {
  tokenizer: typeof TOKENIZER;
  catalogs: CatalogPayload[];
  crossover?: { searched: [number, number]; byMode: Crossover[] };
  /** Every generated size measured (the listed sizes and the crossover probes), smallest first. */
  curve: SizePoint[];
  /** Why the real MCP catalog was not measured, when it was not. */
  mcpSkipped?: string;
  /**
   * Wrong results: turns that completed but called another tool than the request names (the
   * scripted model follows the engine's top search hit, so this is a search regression). The
   * bytes are still recorded; the suite is reported as failed.
   */
  problems: string[];
}

export interface PayloadOptions {
  /** Generated catalog sizes. */
  sizes: readonly number[];
  /** The shared data folder (for LiveMCPBench), or why it is absent. */
  data: { dir: string } | { skipped: string };
  /** Search for the crossover sizes (several extra catalogs). Default true. */
  crossover?: boolean;
  log: Progress;
}

export async function runPayloadBench(options: PayloadOptions): Promise<PayloadResult> {
  const { log } = options;
  const catalogs: CatalogPayload[] = [];
  const bySize = new Map<number, CatalogPayload>();
  const problems: string[] = [];
  const measureSize = async (n: number): Promise<CatalogPayload> => {
    let payload = bySize.get(n);
    if (!payload) {
      payload = await measureCatalog(
        `synthetic-${n}`,
        "synthetic",
        [
          pluginTools(
            "acme",
            syntheticTools(n).map((t) => t.definition),
          ),
        ],
        SYNTHETIC_REQUEST,
        n,
        log,
        problems,
      );
      bySize.set(n, payload);
    }
    return payload;
  };

  for (const n of options.sizes) catalogs.push(await measureSize(n));

  let mcpSkipped: string | undefined;
  if ("dir" in options.data) {
    const servers = loadLiveMcpServers(options.data.dir);
    const count = servers.reduce((s, x) => s + x.tools.length, 0);
    catalogs.push(await measureCatalog(`livemcpbench-${count}`, "mcp", liveMcpSources(servers), MCP_REQUEST, count, log, problems));
  } else {
    mcpSkipped = options.data.skipped;
    log(`real MCP catalog skipped: ${mcpSkipped}`);
  }

  const result: PayloadResult = { tokenizer: TOKENIZER, catalogs, curve: [], ...(mcpSkipped ? { mcpSkipped } : {}), problems };
  if (options.crossover !== false && options.sizes.length > 0) {
    const max = Math.max(...options.sizes);
    const byMode: Crossover[] = [];
    for (const mode of PAYLOAD_MODES.filter((m): m is SearchMode => m !== "direct")) {
      const turnBytes = await findCrossover(max, async (n) => winsAt(await measureSize(n), mode, "turnBytes"));
      const firstRequestBytes = await findCrossover(max, async (n) => winsAt(await measureSize(n), mode, "firstRequestBytes"));
      byMode.push({ mode, turnBytes, firstRequestBytes });
      log(`crossover ${mode}: whole turn from ${turnBytes ?? "never"} tools, first request from ${firstRequestBytes ?? "never"} tools`);
    }
    result.crossover = { searched: [1, max], byMode };
  }
  result.curve = [...bySize.values()]
    .sort((a, b) => a.tools - b.tools)
    .map((c) => ({
      tools: c.tools,
      firstRequestBytes: Object.fromEntries(c.modes.map((m) => [m.requested, m.firstRequestBytes])) as Record<ToolSearchMode, number>,
      turnBytes: Object.fromEntries(c.modes.map((m) => [m.requested, m.turnBytes])) as Record<ToolSearchMode, number>,
    }));
  return result;
}

function winsAt(payload: CatalogPayload, mode: SearchMode, field: "turnBytes" | "firstRequestBytes"): boolean {
  const direct = payload.modes.find((m) => m.requested === "direct")!;
  const other = payload.modes.find((m) => m.requested === mode)!;
  return other[field] < direct[field];
}

/**
 * The smallest n in [1, max] where `wins(n)` holds, assuming it holds from some size on
 * (direct grows with every tool; the search modes stay nearly flat). Probes the powers of ten
 * first (already measured), then bisects the bracket. null when it never wins up to max.
 */
export async function findCrossover(max: number, wins: (n: number) => Promise<boolean>): Promise<number | null> {
  if (!(await wins(max))) return null;
  if (await wins(1)) return 1;
  let lo = 1; // loses
  let hi = max; // wins
  for (let p = 10; p < max; p *= 10) {
    if (await wins(p)) {
      hi = p;
      break;
    }
    lo = p;
  }
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (await wins(mid)) hi = mid;
    else lo = mid;
  }
  return hi;
}

async function measureCatalog(
  name: string,
  kind: CatalogPayload["kind"],
  sources: CatalogSource[],
  request: { input: string; expected: string },
  tools: number,
  log: Progress,
  problems: string[],
): Promise<CatalogPayload> {
  const started = performance.now();
  const stack = await startScriptedStack({ sources });
  const modes: Omit<ModePayload, "firstRequestRatio" | "turnRatio">[] = [];
  try {
    const size = stack.gateway.engine.catalogStatus().size;
    if (size !== tools) throw new Error(`${name}: the gateway's catalog has ${size} tools, expected ${tools}`);
    for (const mode of PAYLOAD_MODES) {
      const turn = await stack.measuredTurn(request.input, mode, `payload-${name}-${mode}`);
      if (!turn.ok) throw new Error(`${name} ${mode}: the scripted turn failed: ${turn.error}`);
      if (!isExpectedTool(turn.finalTool, request.expected)) {
        const problem = `${name} ${mode} called ${turn.finalTool}, expected ${request.expected}`;
        problems.push(problem);
        log(`WRONG RESULT: ${problem} (request "${request.input}")`);
      }
      const first = turn.requests[0];
      if (!first) throw new Error(`${name} ${mode}: the provider received no request`);
      const upfront = turn.telemetry!.upfront;
      modes.push({
        requested: mode,
        mode: turn.mode,
        declaredTools: upfront.declaredTools,
        upfrontSchemas: upfront.schemas,
        toolsBytes: upfront.toolsBytes,
        instructionsBytes: upfront.instructionsBytes,
        firstRequestBytes: first.bytes,
        firstRequestTokens: tokensOf(first),
        turnBytes: turn.requests.reduce((s, r) => s + r.bytes, 0),
        turnTokens: turn.requests.reduce((s, r) => s + tokensOf(r), 0),
        roundTrips: turn.requests.length,
        finalTool: turn.finalTool ?? null,
        ms: round(turn.ms, 1),
      });
      await stack.clearRecorded();
    }
  } finally {
    await stack.close();
  }
  const direct = modes.find((m) => m.requested === "direct")!;
  const withRatios = modes.map((m) => ({
    ...m,
    firstRequestRatio: ratio(m.firstRequestBytes, direct.firstRequestBytes),
    turnRatio: ratio(m.turnBytes, direct.turnBytes),
  }));
  log(
    `${name}: first request ${withRatios.map((m) => `${m.requested} ${formatBytes(m.firstRequestBytes)}`).join(", ")}; ` +
      `turn ${withRatios.map((m) => `${m.requested} ${formatBytes(m.turnBytes)}`).join(", ")} (${Math.round(performance.now() - started)} ms)`,
  );
  return { catalog: name, kind, tools, request: request.input, expectedTool: request.expected, modes: withRatios };
}

function tokensOf(request: RecordedRequest): number {
  return countTokens(JSON.stringify(request.body));
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(2)} MiB`;
}
