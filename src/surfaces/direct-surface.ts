/** direct: every effective tool's schema up front (the baseline). */
import type { RunDispatcher } from "../dispatch/run-dispatcher.js";
import type { CallOutcome } from "../dispatch/types.js";
import { ToolNotFoundError } from "../errors.js";
import { assignFunctionNames, toProviderTool } from "./provider-tool.js";
import { errorResult, type Surface } from "./surface.js";

export function directSurface(dispatcher: RunDispatcher): Surface {
  const byFunction = assignFunctionNames(dispatcher.catalog.entries());
  const tools = [...byFunction].map(([functionName, entry]) => toProviderTool(functionName, entry));
  return {
    tools,
    instructions: "",
    upfrontIds: [...byFunction.values()].map((entry) => entry.id),
    async handle(name, args, signal) {
      const entry = byFunction.get(name);
      if (!entry) return errorResult(new ToolNotFoundError(name));
      return directCallResult(await dispatcher.call(entry.id, args, "direct", signal));
    },
  };
}

/** A direct call answers with the tool's own result, or the error the model can act on. */
export function directCallResult(outcome: CallOutcome): unknown {
  return outcome.ok ? outcome.result : { ok: false, error: outcome.error };
}
