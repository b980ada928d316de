/**
 * runAgentTurn as the package root exports it: the agent loop (agent-turn.ts) loads at the first
 * turn, not with the package. `toolsearch/agent` exports the loop itself.
 */
import type { AgentTurnInput, AgentTurnResult } from "./agent-turn.js";

/** Runs one agent turn (see agent-turn.ts runAgentTurn). */
export async function runAgentTurn(input: AgentTurnInput): Promise<AgentTurnResult> {
  const loop = await import("./agent-turn.js");
  return loop.runAgentTurn(input);
}
