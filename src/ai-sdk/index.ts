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
import { jsonSchema, tool, type JSONSchema7, type ToolSet } from "ai";
import type { ToolSearchRun } from "../engine/run.js";

export function aiSdkTools(run: ToolSearchRun): ToolSet {
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
