/**
 * The admin API's wire types (src/admin/admin-wire-types.ts) spell out the engine's types that
 * its answers carry as they are, because the console's build compiles that file alone. Here each
 * is held equal to the engine's own, so that a field renamed in the engine fails `npm run
 * typecheck` (tsconfig.test.json compiles this file) instead of reaching the console as a field
 * it no longer gets. These are type assertions: at run time they check nothing.
 */
import { describe, expectTypeOf, it } from "vitest";
import type * as wire from "../../src/admin/admin-wire-types.js";
import type { TokenIdentity } from "../../src/auth/token-auth.js";
import type { RebuildError, SourceStatus } from "../../src/catalog/catalog.js";
import type { ToolIdentity, ToolSource } from "../../src/catalog/types.js";
import type { DetailedHit, ExplainDetail, ExplainedHit, GuardStep, ListStep, RankStep, SafetyStep, SearchHit, ToolListing } from "../../src/dispatch/types.js";
import type { LearnedWord, LearningScopeStats, LearningStats } from "../../src/learning/learner.js";
import type { McpSourceState, McpSourceStatus } from "../../src/mcp/mcp-server-source.js";
import type { PoolLoad, SandboxReport } from "../../src/sandbox/types.js";
import type { FieldName, ScoreDetail, WordScore } from "../../src/search/types.js";
import type { ToolSearchMode } from "../../src/settings/tool-search-config.js";
import type { RunTelemetry } from "../../src/telemetry/types.js";

describe("the admin API's wire types are the engine's", () => {
  it("names: sources, modes, MCP states and transports", () => {
    expectTypeOf<wire.ToolSource>().toEqualTypeOf<ToolSource>();
    expectTypeOf<wire.ToolSearchMode>().toEqualTypeOf<ToolSearchMode>();
    expectTypeOf<wire.McpServerState>().toEqualTypeOf<McpSourceState>();
    expectTypeOf<wire.McpTransport>().toEqualTypeOf<McpSourceStatus["transport"]>();
  });

  it("the index's tokens: a token's identity, by its label", () => {
    expectTypeOf<Omit<wire.TokenSummary, "label" | "owner">>().toEqualTypeOf<Omit<TokenIdentity, "owner">>();
  });

  it("the catalog: a source's status and a refused rebuild", () => {
    expectTypeOf<wire.SourceStatus>().toEqualTypeOf<SourceStatus>();
    // The engine's code is the taxonomy's union; the wire says string.
    expectTypeOf<RebuildError>().toExtend<wire.RebuildError>();
    expectTypeOf<keyof RebuildError>().toEqualTypeOf<keyof wire.RebuildError>();
  });

  it("tools and hits", () => {
    expectTypeOf<wire.ToolIdentity>().toEqualTypeOf<ToolIdentity>();
    expectTypeOf<wire.SearchHit>().toEqualTypeOf<SearchHit>();
    expectTypeOf<wire.ToolListing>().toEqualTypeOf<ToolListing>();
    expectTypeOf<Omit<wire.ExplainedHit, "detail">>().toEqualTypeOf<ExplainedHit>();
    expectTypeOf<Required<Pick<wire.ExplainedHit, "detail">>>().toEqualTypeOf<Pick<DetailedHit, "detail">>();
  });

  it("explain: ranking steps and BM25F detail", () => {
    expectTypeOf<wire.FieldName>().toEqualTypeOf<FieldName>();
    expectTypeOf<wire.WordScore>().toEqualTypeOf<WordScore>();
    expectTypeOf<wire.ScoreDetail>().toEqualTypeOf<ScoreDetail>();
    expectTypeOf<wire.ListStep>().toEqualTypeOf<ListStep>();
    expectTypeOf<wire.GuardStep>().toEqualTypeOf<GuardStep>();
    expectTypeOf<wire.SafetyStep>().toEqualTypeOf<SafetyStep>();
    expectTypeOf<wire.RankStep>().toEqualTypeOf<RankStep>();
    expectTypeOf<wire.ExplainDetail>().toEqualTypeOf<ExplainDetail>();
  });

  it("a search's run: its catalog and what its model is shown up front", () => {
    expectTypeOf<wire.Upfront>().toEqualTypeOf<RunTelemetry["upfront"]>();
    expectTypeOf<wire.SearchAnswer["catalog"]>().toEqualTypeOf<RunTelemetry["catalog"]>();
  });

  it("the sandbox and the code pool", () => {
    expectTypeOf<wire.SandboxReport>().toEqualTypeOf<SandboxReport>();
    expectTypeOf<wire.PoolLoad>().toEqualTypeOf<PoolLoad>();
  });

  it("learning's counts and words", () => {
    expectTypeOf<wire.LearningStats>().toEqualTypeOf<LearningStats>();
    expectTypeOf<wire.LearningScopeStats>().toEqualTypeOf<LearningScopeStats>();
    expectTypeOf<wire.LearnedWords["words"][number]>().toEqualTypeOf<LearnedWord>();
  });
});
