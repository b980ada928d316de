/** code: one tool, `tool_search_code`, whose body runs in a sandboxed child (src/sandbox). */
import type { RunDispatcher } from "../dispatch/run-dispatcher.js";
import { InvalidArgsError, ToolSearchError } from "../errors.js";
import type { BridgeHandler, CodePool } from "../sandbox/types.js";
import type { RunRecorder } from "../telemetry/run-recorder.js";
import { CODE_INSTRUCTIONS, TOOL_SEARCH_CODE, codeControlTool } from "./control-tools.js";
import { errorResult, type Surface } from "./surface.js";

const MAX_CODE_CHARS = 100_000;

/** The parent side of `openclaw.tools.*`: every bridged call takes the dispatcher's one path. */
export function bridgeOver(dispatcher: RunDispatcher): BridgeHandler {
  return {
    async search(query, options, { signal }) {
      signal.throwIfAborted();
      return dispatcher.searchYielding(query, options ?? {}, "bridge", signal);
    },
    async describe(id, { signal }) {
      signal.throwIfAborted();
      return dispatcher.describe(id, "bridge");
    },
    async call(id, args, { signal }) {
      const outcome = await dispatcher.call(id, args, "bridge", signal);
      if (!outcome.ok) throw new ToolSearchError(outcome.error.code, outcome.error.message);
      return outcome.result;
    },
  };
}

export function codeSurface(dispatcher: RunDispatcher, pool: CodePool, timeoutMs: number, recorder: RunRecorder): Surface {
  const bridge = bridgeOver(dispatcher);
  return {
    tools: [codeControlTool()],
    instructions: CODE_INSTRUCTIONS,
    upfrontIds: [],
    async handle(name, args, signal) {
      if (name !== TOOL_SEARCH_CODE) return errorResult(new InvalidArgsError(`Unknown tool "${name}". Available: ${TOOL_SEARCH_CODE}.`));
      const code = args.code;
      if (typeof code !== "string" || code.length === 0 || code.length > MAX_CODE_CHARS) {
        return errorResult(new InvalidArgsError(`${TOOL_SEARCH_CODE} needs "code": the body of an async function, 1 to ${MAX_CODE_CHARS} characters.`));
      }
      const result = await pool.run(code, bridge, { timeoutMs, signal });
      recorder.codeRun({
        type: "code_run",
        ok: result.ok,
        ...(result.ok ? {} : { code: result.error.code }),
        ms: Math.round(result.stats.ms * 100) / 100,
        bridgeCalls: result.stats.bridgeCalls,
      });
      return result.ok ? { ok: true, value: result.value, logs: result.logs } : { ok: false, error: result.error, logs: result.logs };
    },
  };
}
