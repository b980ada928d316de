/** The shape of bench/results/<name>.json: one run of `npm run bench`, every figure and where it came from. */
import type { GatewayResult } from "../gateway/gateway-bench.js";
import type { ImportBenchResult } from "../import/import-bench.js";
import type { PayloadResult } from "../payload/payload.js";
import type { RelevanceResult } from "../relevance/relevance-bench.js";
import type { CodeModeSuiteResult } from "../suites/code-mode-suite.js";
import type { SearchSuiteResult } from "../suites/search-suite.js";
import type { StallResult } from "../stall/stall-bench.js";
import type { UpstreamResult } from "../upstream/upstream-bench.js";
import type { MachineInfo } from "./machine.js";

export type SuiteOutcome<T> =
  | { status: "ok"; ms: number; result: T }
  | { status: "skipped"; reason: string }
  /** A broken benchmark: it threw, or a check on its result failed (figures kept when there are any). */
  | { status: "failed"; ms: number; error: string; result?: T };

import type { LearningResult } from "../learning/learning-bench.js";

export const SUITE_NAMES = ["import", "payload", "code-mode", "search", "relevance", "gateway", "stall", "learning", "upstream"] as const;
export type SuiteName = (typeof SUITE_NAMES)[number];

export interface SuiteResults {
  import?: SuiteOutcome<ImportBenchResult>;
  payload?: SuiteOutcome<PayloadResult>;
  "code-mode"?: SuiteOutcome<CodeModeSuiteResult>;
  search?: SuiteOutcome<SearchSuiteResult>;
  relevance?: SuiteOutcome<RelevanceResult>;
  gateway?: SuiteOutcome<GatewayResult>;
  stall?: SuiteOutcome<StallResult>;
  learning?: SuiteOutcome<LearningResult>;
  upstream?: SuiteOutcome<UpstreamResult>;
}

export interface BenchResults {
  schema: 1;
  name: string;
  quick: boolean;
  /** The command that made this file. */
  command: string;
  date: string;
  durationMs: number;
  toolsearch: { version: string; commit?: string; dirty?: boolean };
  machine: MachineInfo;
  /** 1-minute load average before and after: this machine may be shared, and figures move with load. */
  load: { before: number; after: number };
  suites: SuiteResults;
}

/** The result of a suite that ran (ok or failed with figures), else undefined. */
export function resultOf<T>(outcome: SuiteOutcome<T> | undefined): T | undefined {
  if (!outcome) return undefined;
  if (outcome.status === "ok") return outcome.result;
  if (outcome.status === "failed") return outcome.result;
  return undefined;
}
