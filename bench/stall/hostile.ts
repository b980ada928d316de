/**
 * The hostile inputs of the hardening issue, one per kind, each a request a model or a client
 * can send today through a gateway run: a huge unknown id, a backtracking `pattern`, a schema
 * with thousands of patterns, `uniqueItems` over a big array. Each kind is scaled by one size
 * parameter and climbs a ladder of sizes up to its target (the hostile size from the issue), so
 * that the benchmark can stop climbing on code where one step would block the loop for minutes.
 * Sizes hostile inputs at the engine's own input bounds on purpose: imports src/search/ranking/id-suggester.ts, src/validation/ directly.
 */
import { type ToolDefinition, type ToolSearchEngine, type ModelToolCall, type ToolSearchRun, ToolSearchError } from "../../src/index.js";
import { MAX_SUGGESTIBLE_CHARS } from "../../src/search/ranking/id-suggester.js";
import { MAX_BATCH_QUERIES, MAX_QUERY_CHARS } from "../../src/validation/search-args.js";

export const HOSTILE_KIND_NAMES = [
  "long-id-describe",
  "long-id-call",
  "long-tool-name",
  "suggest-cap-id",
  "long-id-code",
  "batch-search-code",
  "regex-backtrack",
  "schema-compile",
  "unique-items",
] as const;
export type HostileKindName = (typeof HOSTILE_KIND_NAMES)[number];

export interface HostileKind {
  name: HostileKindName;
  /** What one iteration sends, for the summary. */
  what: string;
  /** What the size counts ("chars of id", …). */
  unit: string;
  /** Sizes to climb, ascending, ending at the target. */
  ladder: number[];
  /**
   * How one request's time grows with size, for the deadline's prediction and the projection to
   * the target: as a power of the size (edit distance, compile, uniqueItems) or by a constant
   * factor per unit (a backtracking regex doubles per extra character).
   */
  growth: "power" | "exponential";
  /** Run mode the iteration prepares. */
  mode: "tools" | "code";
  /**
   * One hostile request at `size` (iteration `i` keeps inputs distinct where caching would
   * hide the cost): prepareRun, the model's tool call, run.end(). Resolves to the outcome code.
   */
  iterate(engine: ToolSearchEngine, size: number, i: number): Promise<string>;
}

/** Sizes from `from` to `to`, doubling, `to` always last. */
export function doublingLadder(from: number, to: number): number[] {
  const out: number[] = [];
  for (let s = Math.min(from, to); s < to; s *= 2) out.push(s);
  out.push(to);
  return out;
}

/** Sizes from `from` to `to` in steps of one (the backtracking regex doubles its cost per step). */
export function linearLadder(from: number, to: number): number[] {
  const out: number[] = [];
  for (let s = Math.min(from, to); s <= to; s += 1) out.push(s);
  return out;
}

/** `{ ok: false, error: { code } }` → code; anything else → "ok". */
export function outcomeOf(message: string): string {
  try {
    const value = JSON.parse(message) as unknown;
    if (typeof value === "object" && value !== null && (value as { ok?: unknown }).ok === false) {
      const code = (value as { error?: { code?: unknown } }).error?.code;
      return typeof code === "string" ? code : "error";
    }
    return "ok";
  } catch {
    return "unparsed";
  }
}

/**
 * One run, one model tool call, run.end(). A request the engine refuses at prepareRun (a size
 * cap, say) is an outcome, `prepareRun:<code>`; anything that is not a ToolSearchError is a
 * broken benchmark and is thrown.
 */
async function oneCall(
  engine: ToolSearchEngine,
  context: { sessionId: string; mode: "tools" | "code"; clientTools?: ToolDefinition[] },
  call: ModelToolCall,
): Promise<string> {
  let run: ToolSearchRun;
  try {
    run = await engine.prepareRun(context);
  } catch (error) {
    if (error instanceof ToolSearchError) return `prepareRun:${error.code}`;
    throw error;
  }
  try {
    return outcomeOf(await run.handleToolCall(call));
  } finally {
    await run.end();
  }
}

/** A client tool as a gateway client declares it: the gateway answers its calls with "forwarded". */
export function clientTool(name: string, inputSchema: Record<string, unknown>): ToolDefinition {
  return { name, description: `Client tool ${name} for the stall benchmark.`, inputSchema, execute: () => ({ status: "forwarded_to_client", tool: name }) };
}

/** An id no tool has, `size` characters, made of catalog-like words so that every scorer does its full work. */
function longUnknownId(size: number, i: number): string {
  const body = `plugin:acme:crm_create_contact_${i}_`;
  return (body + "zq_update_ticket_".repeat(Math.ceil(size / 17))).slice(0, size);
}

/** Catalog-like words for the batch-search kind, so that every query term has postings to score. */
const BATCH_QUERY_WORDS = "send an email with the weather forecast and create a calendar event then upload the report ";

/** Stands for the iteration number in a schema template (see patternSchemaTemplate). */
const ITERATION_MARK = "@ITER@";

/**
 * The JSON text of a schema with `properties` properties, each with a `pattern` of its own
 * (~80 bytes a property; 6,000 → ~480 KB), with ITERATION_MARK where the iteration number goes:
 * every request gets patterns no earlier request had, so no cache (ajv's, a regex cache) can
 * answer it, and the bench only substitutes a number instead of building 6,000 objects.
 */
function patternSchemaTemplate(properties: number): string {
  const props: Record<string, unknown> = {};
  for (let p = 0; p < properties; p += 1)
    props[`field_${ITERATION_MARK}_${p}`] = { type: "string", pattern: `^[a-z]{1,8}-${p}-${ITERATION_MARK}(\\.[a-z0-9]+)*$` };
  return JSON.stringify({ type: "object", properties: props });
}

/** Request `i`'s schema: parsing it is the gateway's share (it parses a client's JSON body the same way). */
function patternSchema(template: string, i: number): Record<string, unknown> {
  return JSON.parse(template.replaceAll(ITERATION_MARK, String(i))) as Record<string, unknown>;
}

/**
 * `build(size)`, kept for the size last asked for. The bench's own work (20,000 objects to
 * stringify, say) runs on the loop it measures: it is done once per size, at the first ladder
 * step of that size, not inside every request of the window.
 */
function lastSize<T>(build: (size: number) => T): (size: number) => T {
  let cached: { size: number; value: T } | undefined;
  return (size) => {
    if (cached?.size !== size) cached = { size, value: build(size) };
    return cached.value;
  };
}

export interface KindTargets {
  /** Characters of the unknown id (issue: 100,000–400,000). */
  idChars: number;
  /** "a"s before the "!" that `^(a+)+$` has to give up on (issue: 30). */
  regexChars: number;
  /** Properties with a `pattern` in one client schema (issue: 6,000, ~350 KB; ours are ~480 KB). */
  schemaProperties: number;
  /** Objects in the `uniqueItems` array (issue: 20,000). */
  uniqueItems: number;
}

export const FULL_TARGETS: KindTargets = { idChars: 400_000, regexChars: 30, schemaProperties: 6_000, uniqueItems: 20_000 };
export const QUICK_TARGETS: KindTargets = { idChars: 20_000, regexChars: 24, schemaProperties: 1_500, uniqueItems: 5_000 };

export function hostileKinds(targets: KindTargets, options: { code: boolean }): HostileKind[] {
  const describeArgs = lastSize((size) => JSON.stringify({ id: longUnknownId(size, 0) }));
  const callArgs = lastSize((size) => JSON.stringify({ id: longUnknownId(size, 0), args: {} }));
  const toolName = lastSize((size) => longUnknownId(size, 0));
  const regexArgs = lastSize((size) => JSON.stringify({ id: "client:match", args: { s: `${"a".repeat(size)}!` } }));
  const schemaTemplate = lastSize(patternSchemaTemplate);
  const rowsArgs = lastSize((size) =>
    JSON.stringify({ id: "client:bulk", args: { rows: Array.from({ length: size }, (_, k) => ({ row: k, key: `k${k}` })) } }),
  );
  const kinds: HostileKind[] = [
    {
      name: "long-id-describe",
      what: "tool_describe of an unknown id",
      unit: "chars of id",
      ladder: doublingLadder(250, targets.idChars),
      growth: "power",
      mode: "tools",
      iterate: (engine, size, i) =>
        oneCall(engine, { sessionId: `stall-describe-${i}`, mode: "tools" }, { name: "tool_describe", arguments: describeArgs(size) }),
    },
    {
      name: "long-id-call",
      what: "tool_call of an unknown id",
      unit: "chars of id",
      ladder: doublingLadder(250, targets.idChars),
      growth: "power",
      mode: "tools",
      iterate: (engine, size, i) => oneCall(engine, { sessionId: `stall-call-${i}`, mode: "tools" }, { name: "tool_call", arguments: callArgs(size) }),
    },
    {
      name: "long-tool-name",
      what: "a model tool call whose name no tool has",
      unit: "chars of name",
      ladder: doublingLadder(250, targets.idChars),
      growth: "power",
      mode: "tools",
      iterate: (engine, size, i) => oneCall(engine, { sessionId: `stall-name-${i}`, mode: "tools" }, { name: toolName(size), arguments: "{}" }),
    },
    {
      // The longest unknown id the "did you mean" suggester still works on (longer ones skip it), so
      // its worst case: the same target in quick and full runs, since past it the cap applies.
      name: "suggest-cap-id",
      what: `tool_describe of an unknown id up to ${MAX_SUGGESTIBLE_CHARS} chars (the suggester's cap), a new one every request`,
      unit: "chars of id",
      ladder: doublingLadder(32, MAX_SUGGESTIBLE_CHARS),
      growth: "power",
      mode: "tools",
      iterate: (engine, size, i) =>
        oneCall(
          engine,
          { sessionId: `stall-suggest-${i}`, mode: "tools" },
          { name: "tool_describe", arguments: JSON.stringify({ id: longUnknownId(size, i) }) },
        ),
    },
    {
      name: "regex-backtrack",
      what: 'client tool `pattern: "^(a+)+$"` called with "a"×n + "!"',
      unit: '"a"s',
      ladder: linearLadder(Math.min(16, targets.regexChars), targets.regexChars),
      growth: "exponential",
      mode: "tools",
      iterate: (engine, size, i) =>
        oneCall(
          engine,
          {
            sessionId: `stall-regex-${i}`,
            mode: "tools",
            clientTools: [clientTool("match", { type: "object", properties: { s: { type: "string", pattern: "^(a+)+$" } } })],
          },
          { name: "tool_call", arguments: regexArgs(size) },
        ),
    },
    {
      name: "schema-compile",
      what: "client tool whose schema has n properties, each with a `pattern` of its own, called once (parse, prepare, compile)",
      unit: "properties",
      ladder: doublingLadder(50, targets.schemaProperties),
      growth: "power",
      mode: "tools",
      iterate: (engine, size, i) =>
        oneCall(
          engine,
          { sessionId: `stall-compile-${i}`, mode: "tools", clientTools: [clientTool("wide", patternSchema(schemaTemplate(size), i))] },
          { name: "tool_call", arguments: JSON.stringify({ id: "client:wide", args: {} }) },
        ),
    },
    {
      name: "unique-items",
      what: "client tool `uniqueItems: true` called with n distinct objects",
      unit: "items",
      ladder: doublingLadder(625, targets.uniqueItems),
      growth: "power",
      mode: "tools",
      iterate: (engine, size, i) =>
        oneCall(
          engine,
          {
            sessionId: `stall-unique-${i}`,
            mode: "tools",
            clientTools: [clientTool("bulk", { type: "object", properties: { rows: { type: "array", uniqueItems: true } } })],
          },
          { name: "tool_call", arguments: rowsArgs(size) },
        ),
    },
  ];
  if (options.code) {
    // After the tools-mode id kinds (index 4), in HOSTILE_KIND_NAMES order.
    kinds.splice(
      4,
      0,
      {
        name: "long-id-code",
        what: "code-mode body `openclaw.tools.describe(id)` of an unknown id",
        unit: "chars of id",
        ladder: doublingLadder(250, targets.idChars),
        growth: "power",
        mode: "code",
        // The id is built inside the body: a body is capped at 100,000 characters, an id is not.
        iterate: (engine, size, i) =>
          oneCall(
            engine,
            { sessionId: `stall-code-${i}`, mode: "code" },
            {
              name: "tool_search_code",
              arguments: JSON.stringify({
                code: `const id = ${JSON.stringify(longUnknownId(64, i))}.repeat(${Math.ceil(size / 64)}).slice(0, ${size});\nreturn await openclaw.tools.describe(id);`,
              }),
            },
          ),
      },
      {
        // The biggest batch a body may send, every query at the length a query is cut to: the worst search a body can ask for.
        name: "batch-search-code",
        what: `code-mode body \`openclaw.tools.search([…])\` of ${MAX_BATCH_QUERIES} queries (the batch cap) of catalog words, up to ${MAX_QUERY_CHARS} chars each (the query cap)`,
        unit: "chars per query",
        ladder: doublingLadder(125, MAX_QUERY_CHARS),
        growth: "power",
        mode: "code",
        iterate: (engine, size, i) =>
          oneCall(
            engine,
            { sessionId: `stall-batch-${i}`, mode: "code" },
            {
              name: "tool_search_code",
              arguments: JSON.stringify({
                code:
                  `const words = ${JSON.stringify(`request ${i} ${BATCH_QUERY_WORDS}`)}.repeat(${Math.ceil(size / BATCH_QUERY_WORDS.length)}).slice(0, ${size});\n` +
                  `return (await openclaw.tools.search(Array.from({ length: ${MAX_BATCH_QUERIES} }, (_, k) => words.slice(k)), { limit: 2 })).length;`,
              }),
            },
          ),
      },
    );
  }
  return kinds;
}
