/** code: one tool, `tool_search_code`, whose body runs in a sandboxed child (src/sandbox). */
import type { RunDispatcher } from "../dispatch/run-dispatcher.js";
import { InvalidArgsError, SandboxUnavailableError, ToolSearchError } from "../errors.js";
import type { BridgeHandler } from "../sandbox/types.js";
import { outcomeAttributes, type TraceScope } from "../telemetry/otel.js";
import { CODE_INSTRUCTIONS, TOOL_SEARCH_CODE, codeControlTool } from "./control-tools.js";
import { errorResult, type SurfaceMode } from "./surface.js";

const MAX_CODE_CHARS = 100_000;

/**
 * The parent side of `openclaw.tools.*`: every bridged call takes the dispatcher's one path.
 * `trace` parents the bridged searches and calls (the code run's span).
 */
export function bridgeOver(dispatcher: RunDispatcher, trace: TraceScope = {}): BridgeHandler {
  return {
    async search(query, options, { signal }) {
      signal.throwIfAborted();
      return dispatcher.searchYielding(query, options ?? {}, "bridge", signal, trace);
    },
    async describe(id, { signal }) {
      signal.throwIfAborted();
      return dispatcher.describe(id, "bridge");
    },
    async call(id, args, { signal }) {
      const outcome = await dispatcher.call(id, args, "bridge", signal, trace);
      if (!outcome.ok) throw new ToolSearchError(outcome.error.code, outcome.error.message);
      return outcome.result;
    },
  };
}

export const codeMode: SurfaceMode = {
  sandboxFallback: "tools",
  build: ({ dispatcher, settings, recorder, pool, tenant }) => ({
    tools: [codeControlTool()],
    instructions: CODE_INSTRUCTIONS,
    upfrontIds: [],
    selfBounded: true,
    async handle(name, args, { signal, trace }) {
      if (name !== TOOL_SEARCH_CODE) return errorResult(new InvalidArgsError(`Unknown tool "${name}". Available: ${TOOL_SEARCH_CODE}.`));
      const code = args.code;
      if (typeof code !== "string" || code.length === 0 || code.length > MAX_CODE_CHARS) {
        return errorResult(new InvalidArgsError(`${TOOL_SEARCH_CODE} needs "code": the body of an async function, 1 to ${MAX_CODE_CHARS} characters.`));
      }
      const span = dispatcher.trace.codeRunSpan(trace);
      const bridge = bridgeOver(dispatcher, { parent: span.context, ...(trace.callId !== undefined ? { callId: trace.callId } : {}) });
      let result;
      try {
        if (!pool) throw new SandboxUnavailableError("code mode needs the code sandbox");
        result = await pool.run(code, bridge, { timeoutMs: settings.codeTimeoutMs, signal, tenant });
      } catch (error) {
        outcomeAttributes(span.span, "TOOL_FAILED");
        span.span.end();
        throw error;
      }
      span.span.setAttributes({ "toolsearch.code.duration_ms": Math.round(result.stats.ms * 100) / 100, "toolsearch.code.bridge_calls": result.stats.bridgeCalls });
      outcomeAttributes(span.span, result.ok ? undefined : result.error.code);
      span.span.end();
      recorder.codeRun({
        type: "code_run",
        ok: result.ok,
        ...(result.ok ? {} : { code: result.error.code }),
        ms: Math.round(result.stats.ms * 100) / 100,
        bridgeCalls: result.stats.bridgeCalls,
      });
      return result.ok ? { ok: true, value: result.value, logs: result.logs } : { ok: false, error: result.error, logs: result.logs };
    },
  }),
};
