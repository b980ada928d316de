/**
 * `toolsearch/ai-sdk`: a run's surface as a Vercel AI SDK ToolSet (`ai` v6, an optional peer
 * dependency: only this entry point imports it, the core package never does).
 *
 *   const run = await engine.prepareRun({ sessionId });
 *   const { text } = await generateText({ model, system: run.instructions, tools: aiSdkTools(run), prompt, stopWhen: stepCountIs(8) });
 *
 * Every execute is `run.handleToolCall`: the run's one call path (policy, hooks, approval,
 * telemetry, spans). The output is the same tool-message text the other formats get.
 */
import { createRequire } from "node:module";
import type { JSONSchema7, ToolSet } from "ai";
import type { ToolSearchRun } from "../engine/run.js";
import { ConfigInvalidError } from "../errors.js";

type AiHelpers = Pick<typeof import("ai"), "jsonSchema" | "tool">;
let ai: AiHelpers | undefined;

/**
 * `ai` is loaded on first use, not imported: a static import of a missing optional peer fails
 * at link time with Node's bare "Cannot find package 'ai'", before any code of ours can say
 * which package and version to install. The two helpers used are plain functions whose schema
 * marker is a registered symbol (`Symbol.for`), so they agree with the caller's copy of `ai`
 * whichever module format loaded it.
 */
function loadAi(): AiHelpers {
  if (ai) return ai;
  try {
    ai = createRequire(import.meta.url)("ai") as AiHelpers;
  } catch (error) {
    if ((error as { code?: string }).code !== "MODULE_NOT_FOUND") throw error;
    throw new ConfigInvalidError('toolsearch/ai-sdk needs the optional peer dependency "ai" (version 6): run npm install ai@^6');
  }
  return ai;
}

export function aiSdkTools(run: ToolSearchRun): ToolSet {
  const { jsonSchema, tool } = loadAi();
  const tools: ToolSet = {};
  for (const declared of run.toolsFor("openai-chat")) {
    const { name, description, parameters } = declared.function;
    tools[name] = tool<Record<string, unknown>, string>({
      description,
      inputSchema: jsonSchema<Record<string, unknown>>(parameters as JSONSchema7),
      async execute(input, { toolCallId, abortSignal }) {
        abortSignal?.throwIfAborted();
        return run.handleToolCall({ id: toolCallId, name, arguments: input });
      },
    });
  }
  return tools;
}
