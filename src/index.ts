/**
 * The public API of toolsearch. Nothing else is promised. The engine and a run are reached
 * through createToolSearch and engine.prepareRun, an MCP source through mcpServer, a pool through
 * createCodePool; their classes are exported as types only.
 */
export { createToolSearch, type ToolSearchEngine, type ToolListFilter } from "./engine/engine.js";
export type { CreateToolSearchOptions, RunContext, InputLimits } from "./engine/options.js";
export type { IndexSnapshotOptions } from "./search/storage/snapshot-store.js";
export type { SourceStatus } from "./catalog/catalog.js";
export type { ToolSearchRun, ModelToolCall, ToolCallAnswer } from "./engine/run.js";

export { coreTools, pluginTools, type CatalogSource } from "./catalog/sources.js";
// The same names as the `toolsearch/mcp` entry point, listed once there.
export * from "./mcp/public.js";
export type { ToolDefinition, ToolAnnotations, ToolContext, ToolSource, ToolIdentity, JsonSchema } from "./catalog/types.js";

export { resolveToolSearchConfig, DEFAULT_SETTINGS, TOOL_SEARCH_MODES } from "./settings/tool-search-config.js";
export type { ToolSearchConfig, ToolSearchMode, ToolSearchSettings, DirectorySettings } from "./settings/tool-search-config.js";

export type { PolicyConfig, PolicyRule } from "./policy/types.js";
export type { ToolHooks, ToolCallInfo, BeforeToolCallHook, BeforeToolCallResult, ApproveHook, ApprovalDecision, AfterToolCallHook } from "./dispatch/hooks.js";
export type {
  SearchHit,
  BatchSearchResult,
  SearchOptions,
  ToolDescription,
  CallOutcome,
  ExplainedHit,
  ExplainOptions,
  DetailedHit,
  ExplainDetail,
  RankStep,
  ListStep,
  ToolListing,
  SafetyStep,
  GuardStep,
} from "./dispatch/types.js";
export type { LearningControl } from "./engine/engine.js";
export type { LearningConfig, LearningObject, LearningScope, ResolvedLearningOptions } from "./learning/options.js";
export { memoryLearningStore, type LearningStore, type LearnedExport, type CompactionKeep, type CompactionReport } from "./learning/store.js";
export { journalLearningStore, type JournalStoreOptions } from "./learning/journal-store.js";
export type { TermMode } from "./learning/term-keys.js";
export type { LearnedRow } from "./learning/model.js";
export type { LearningStats, LearningScopeStats } from "./learning/learner.js";
export type { ProviderTool } from "./surfaces/provider-tool.js";
export { runAgentTurn } from "./agent/run-agent-turn.js";
export { MAX_CALLS_PER_RESPONSE } from "./agent/limits.js";
export type { AgentProvider, AgentMessage, AgentTurnInput, AgentTurnResult, AgentToolCall, TokenUsage } from "./agent/agent-turn.js";
export type { ProviderApi } from "./wire/wire-types.js";
export { TOOL_FORMATS, type ToolFormat, type FormatTools, type OpenAIChatTool, type OpenAIResponsesTool, type AnthropicTool } from "./surfaces/formats.js";

export type {
  SearchBackend,
  SearchBackendFactory,
  SearchDoc,
  BackendChoice,
  BackendHit,
  BackendSearchOptions,
  SnapshotExpectation,
  ScoreDetail,
  WordScore,
  FieldName,
} from "./search/types.js";
export { bm25fBackend, fts5Backend } from "./search/backends/bm25f-backend.js";
export { minisearchBackend } from "./search/backends/minisearch-backend.js";

export type { RunTelemetry, SessionEvent, SessionLogSink, CallRecord, CallVia } from "./telemetry/types.js";
export { EVENT_CHANNEL } from "./telemetry/run-recorder.js";
export { ERROR_CHANNEL, type FailureEvent, type FailureOrigin } from "./error-channel.js";
export type { TracingOptions } from "./telemetry/otel.js";
export { jsonlSessionLog, type JsonlSessionLog, type JsonlSessionLogOptions, type SearchLineWithoutText } from "./telemetry/jsonl-session-log.js";
export type { SandboxReport, PoolOptions, PoolLoad, CodePool, CodeResult } from "./sandbox/types.js";
export { createCodePool } from "./sandbox/create-code-pool.js";

export {
  ToolSearchError,
  ConfigInvalidError,
  ToolNotFoundError,
  ToolUnavailableError,
  ToolBusyError,
  AmbiguousToolNameError,
  NameCollisionError,
  InvalidArgsError,
  CancelledError,
  ApprovalDeniedError,
  HookBlockedError,
  ToolFailedError,
  ToolTimeoutError,
  CodeError,
  SandboxUnavailableError,
  PoolSaturatedError,
  EngineClosedError,
  ProviderFailedError,
  TurnBudgetError,
  InternalError,
  type ErrorCode,
  type ErrorPayload,
} from "./errors.js";
