/** tools: `tool_search`, `tool_describe`, `tool_call`, for providers that must not get code. */
import type { RunDispatcher } from "../dispatch/run-dispatcher.js";
import { InvalidArgsError } from "../errors.js";
import { refuseUnknownKeys } from "../validation/control-args.js";
import { STRUCTURED_INSTRUCTIONS, TOOL_CALL, TOOL_DESCRIBE, TOOL_SEARCH, structuredControlTools } from "./control-tools.js";
import { errorResult, type SurfaceCall, type SurfaceMode } from "./surface.js";

export interface StructuredHandlers {
  [TOOL_SEARCH](args: Record<string, unknown>, call: SurfaceCall): unknown;
  [TOOL_DESCRIBE](args: Record<string, unknown>, call: SurfaceCall): unknown;
  [TOOL_CALL](args: Record<string, unknown>, call: SurfaceCall): Promise<unknown>;
}

/** Said beside hits that are only partial matches (SearchHit.weak): the model should rephrase. */
export const WEAK_NOTE = "No tool matched these words; the hits are weak partial matches. Rephrase with the words a tool's name or description would use, or describe one of these.";

/** The three control tools' behaviour, shared by the tools and directory surfaces. */
export function structuredHandlers(dispatcher: RunDispatcher): StructuredHandlers {
  return {
    [TOOL_SEARCH](args, { signal, trace }) {
      refuseUnknownKeys(TOOL_SEARCH, args, ["query", "queries", "limit"]);
      if (args.query !== undefined && args.queries !== undefined) throw new InvalidArgsError('tool_search takes "query" or "queries", not both.');
      const limit = args.limit as number | undefined;
      if (args.queries !== undefined) return dispatcher.searchYielding(args.queries as string[], { limit }, "tool_call", signal, trace).then((results) => ({ results }));
      if (typeof args.query !== "string") throw new InvalidArgsError('tool_search needs "query" (a string) or "queries" (a list of strings).');
      const hits = dispatcher.search(args.query, { limit }, "tool_call", trace);
      return hits.length > 0 && hits.every((h) => h.weak === true) ? { hits, note: WEAK_NOTE } : { hits };
    },
    [TOOL_DESCRIBE](args) {
      refuseUnknownKeys(TOOL_DESCRIBE, args, ["id"]);
      return dispatcher.describe(args.id, "tool_call");
    },
    async [TOOL_CALL](args, { signal, trace }) {
      return dispatcher.call(args.id, parseNestedArgs(toolCallArgs(args)), "tool_call", signal, trace);
    },
  };
}

/**
 * The tool's arguments of a tool_call. `arguments` is taken as another name for `args`: it is the
 * key OpenAI's own tool calls use, so models send it, and refusing it would cost a round trip for
 * nothing; sending both is ambiguous and refused. Any other key is refused, never dropped.
 */
function toolCallArgs(args: Record<string, unknown>): unknown {
  refuseUnknownKeys(TOOL_CALL, args, ["id", "args", "arguments"]);
  if (args.args !== undefined && args.arguments !== undefined) throw new InvalidArgsError('tool_call takes the tool\'s arguments as "args" (or "arguments"), not both.');
  return args.args !== undefined ? args.args : args.arguments;
}

/** Models sometimes send `args` as a JSON string; accept that, and a missing `args` as `{}`. */
function parseNestedArgs(args: unknown): unknown {
  if (args === undefined || args === null) return {};
  if (typeof args !== "string") return args;
  try {
    return JSON.parse(args) as unknown;
  } catch {
    throw new InvalidArgsError('tool_call "args" must be an object (or a JSON string of one).');
  }
}

export function isStructuredControl(name: string): name is keyof StructuredHandlers {
  return name === TOOL_SEARCH || name === TOOL_DESCRIBE || name === TOOL_CALL;
}

export const structuredMode: SurfaceMode = {
  build({ dispatcher, settings }) {
    const handlers = structuredHandlers(dispatcher);
    return {
      tools: structuredControlTools(settings.maxSearchLimit),
      instructions: STRUCTURED_INSTRUCTIONS,
      upfrontIds: [],
      async handle(name, args, call) {
        if (!isStructuredControl(name)) {
          return errorResult(new InvalidArgsError(`Unknown tool "${name}". Available: ${TOOL_SEARCH}, ${TOOL_DESCRIBE}, ${TOOL_CALL}.`));
        }
        return handlers[name](args, call);
      },
    };
  },
};
