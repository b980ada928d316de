/** `toolsearch/agent`: the agent loop over a run and a provider (agent-turn.ts), without the root's lazy detour. */
export {
  runAgentTurn,
  MAX_CALLS_PER_RESPONSE,
  type AgentProvider,
  type AgentMessage,
  type AgentTurnInput,
  type AgentTurnResult,
  type AgentToolCall,
  type TokenUsage,
} from "./agent-turn.js";
