/** tools: `tool_search`, `tool_describe`, `tool_call`, for providers that must not get code. */
import type { RunDispatcher } from "../dispatch/run-dispatcher.js";
import { InvalidArgsError, ToolNotFoundError } from "../errors.js";
import { refuseUnknownKeys } from "../validation/control-args.js";
import { TOOLS_MODE_INSTRUCTIONS, TOOL_CALL, TOOL_DESCRIBE, TOOL_SEARCH, toolsModeControlTools } from "./control-tools.js";
import { failed, failedWith, succeeded, type SurfaceCall, type SurfaceMode, type SurfaceResult } from "./surface.js";
import { definedProps } from "../defined.js";

export interface ToolsModeHandlers {
  [TOOL_SEARCH](args: Record<string, unknown>, call: SurfaceCall): Promise<SurfaceResult>;
  [TOOL_DESCRIBE](args: Record<string, unknown>, call: SurfaceCall): Promise<SurfaceResult>;
  [TOOL_CALL](args: Record<string, unknown>, call: SurfaceCall): Promise<SurfaceResult>;
}

/** Said beside hits that are only partial matches (SearchHit.weak): the model should rephrase. */
const WEAK_NOTE =
  "No tool matched these words; the hits are weak partial matches. Rephrase with the words a tool's name or description would use, or describe one of these.";

/** The three control tools' behaviour, shared by the tools and directory surfaces. */
export function toolsModeHandlers(dispatcher: RunDispatcher): ToolsModeHandlers {
  return {
    async [TOOL_SEARCH](args, { signal, trace }) {
      refuseUnknownKeys(TOOL_SEARCH, args, ["query", "queries", "limit"]);
      if (args.query !== undefined && args.queries !== undefined) throw new InvalidArgsError('tool_search takes "query" or "queries", not both.');
      // checkSearchArgs (in the dispatcher) checks the limit's type; an absent limit is left out.
      const options = definedProps({ limit: args.limit as number | undefined });
      if (args.queries !== undefined) return succeeded({ results: await dispatcher.search(args.queries as string[], options, "tool_call", signal, trace) });
      if (typeof args.query !== "string") throw new InvalidArgsError('tool_search needs "query" (a string) or "queries" (a list of strings).');
      const hits = await dispatcher.search(args.query, options, "tool_call", signal, trace);
      return succeeded(hits.length > 0 && hits.every((h) => h.weak === true) ? { hits, note: WEAK_NOTE } : { hits });
    },
    async [TOOL_DESCRIBE](args, { signal }) {
      refuseUnknownKeys(TOOL_DESCRIBE, args, ["id"]);
      return succeeded(await dispatcher.describe(args.id, "tool_call", signal));
    },
    async [TOOL_CALL](args, { signal, trace }) {
      // The model reads the whole outcome, `{ ok, id, result | error }`, either way.
      const outcome = await dispatcher.call(args.id, parseNestedArgs(toolCallArgs(args)), "tool_call", signal, trace);
      return outcome.ok ? succeeded(outcome) : failed(outcome.error, outcome);
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
  if (args.args !== undefined && args.arguments !== undefined)
    throw new InvalidArgsError('tool_call takes the tool\'s arguments as "args" (or "arguments"), not both.');
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

export function isToolsModeControl(name: string): name is keyof ToolsModeHandlers {
  return name === TOOL_SEARCH || name === TOOL_DESCRIBE || name === TOOL_CALL;
}

export const toolsMode: SurfaceMode = {
  build({ dispatcher, settings }) {
    const handlers = toolsModeHandlers(dispatcher);
    return {
      tools: toolsModeControlTools(settings.maxSearchLimit),
      instructions: TOOLS_MODE_INSTRUCTIONS,
      upfrontIds: [],
      async handle(name, args, call) {
        if (!isToolsModeControl(name)) {
          // As direct mode answers a name it does not know; the suggestions are this mode's whole list.
          return failedWith(new ToolNotFoundError(name, [TOOL_SEARCH, TOOL_DESCRIBE, TOOL_CALL]));
        }
        return handlers[name](args, call);
      },
    };
  },
};
