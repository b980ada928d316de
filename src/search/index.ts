/** The search layer's public surface, for the engine (src/engine*) and src/index.ts. */
export type { BackendChoice, BackendHit, BackendSearchOptions, SearchBackend, SearchBackendFactory, SearchDoc } from "./types.js";
export { fts5Backend, Fts5Backend } from "./fts5-backend.js";
export { minisearchBackend, MiniSearchBackend } from "./minisearch-backend.js";
export { ToolIndex } from "./tool-index.js";
export type { ToolIndexSearchOptions } from "./tool-index.js";
export {
  ToolIndexCache,
  closeToolIndexCache,
  fingerprintDocs,
  getToolIndex,
  resolveBackend,
  sharedToolIndexCache,
} from "./index-cache.js";
export type { GetToolIndexOptions, IndexBuildInfo, ToolIndexCacheOptions } from "./index-cache.js";
export { analyzeDoc, analyzeQuery, analyzeText, splitIdentifier, stem } from "./analyze.js";
export type { AnalyzedDoc, QueryTerm } from "./analyze.js";
