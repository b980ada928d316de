/** code: one tool, `tool_search_code`, whose body runs in a sandboxed child (src/sandbox). */
import type { RunDispatcher } from "../dispatch/run-dispatcher.js";
import { InvalidArgsError, SandboxUnavailableError, ToolNotFoundError, ToolSearchError } from "../errors.js";
import type { BridgeHandler } from "../sandbox/types.js";
import { answerError } from "../error-channel.js";
import { traceDispatched } from "../telemetry/dispatched.js";
import type { TraceScope } from "../telemetry/otel.js";
import { CODE_INSTRUCTIONS, TOOL_SEARCH_CODE, codeControlTool } from "./control-tools.js";
import { failed, failedWith, succeeded, type SurfaceMode } from "./surface.js";
import { definedProps } from "../defined.js";

const MAX_CODE_CHARS = 100_000;

/**
 * The parent side of `openclaw.tools.*`: every bridged call takes the dispatcher's one path.
 * `trace` parents the bridged searches and calls (the code run's span).
 */
function bridgeOver(dispatcher: RunDispatcher, trace: TraceScope = {}): BridgeHandler {
  return {
    async search(query, options, { signal }) {
      signal.throwIfAborted();
      return classified(signal, () => dispatcher.search(query, options ?? {}, "bridge", signal, trace));
    },
    async describe(id, { signal }) {
      signal.throwIfAborted();
      return classified(signal, () => dispatcher.describe(id, "bridge", signal));
    },
    async call(id, args, { signal }) {
      const outcome = await dispatcher.call(id, args, "bridge", signal, trace);
      if (!outcome.ok) throw new ToolSearchError(outcome.error.code, outcome.error.message);
      return outcome.result;
    },
  };
}

/**
 * The body sees a ToolSearchError; a fault of ours is INTERNAL there too, its detail on the error
 * channel. An abort is the body's end, not a fault: its reason goes on as it is.
 */
async function classified<T>(signal: AbortSignal, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw signal.aborted ? error : answerError(error);
  }
}

export const codeMode: SurfaceMode = {
  sandboxFallback: "tools",
  build: ({ dispatcher, settings, recorder, pool, tenant }) => ({
    tools: [codeControlTool()],
    instructions: CODE_INSTRUCTIONS,
    upfrontIds: [],
    selfBounded: true,
    async handle(name, args, { signal, trace }) {
      if (name !== TOOL_SEARCH_CODE) return failedWith(new ToolNotFoundError(name, [TOOL_SEARCH_CODE]));
      const code = args.code;
      if (typeof code !== "string" || code.length === 0 || code.length > MAX_CODE_CHARS) {
        return failedWith(new InvalidArgsError(`${TOOL_SEARCH_CODE} needs "code": the body of an async function, 1 to ${MAX_CODE_CHARS} characters.`));
      }
      const result = await traceDispatched({
        open: () => dispatcher.trace.codeRunSpan(trace),
        run: async ({ context }) => {
          if (!pool) throw new SandboxUnavailableError("code mode needs the code sandbox");
          const bridge = bridgeOver(dispatcher, { parent: context, ...definedProps({ callId: trace.callId }) });
          return pool.run(code, bridge, { timeoutMs: settings.codeTimeoutMs, signal, tenant });
        },
        settle: (result) => ({
          code: result.ok ? undefined : result.error.code,
          attributes: { "toolsearch.code.duration_ms": Math.round(result.stats.ms * 100) / 100, "toolsearch.code.bridge_calls": result.stats.bridgeCalls },
        }),
        record: (result) =>
          recorder.codeRun({
            type: "code_run",
            ok: result.ok,
            ...(result.ok ? {} : { code: result.error.code }),
            ms: Math.round(result.stats.ms * 100) / 100,
            bridgeCalls: result.stats.bridgeCalls,
          }),
      });
      return result.ok
        ? succeeded({ ok: true, value: result.value, logs: result.logs })
        : failed(result.error, { ok: false, error: result.error, logs: result.logs });
    },
  }),
};
