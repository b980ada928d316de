/**
 * The words learning from use tied to a tool, for an operator — the one place the admin API
 * shows learned terms, kept apart from the summary (which is counts only) so that it can answer
 * "none" on its own terms. Request words are what users typed: a store may keep them only as
 * keyed hashes, and then there are none to show. They are shown only where the operator opted
 * to keep them readable (`tools.toolSearch.learning.recordTerms: true`); otherwise, and when
 * learning is off, the answer is an empty list and why.
 */
import type { ToolSearchEngine } from "../engine/engine.js";
import type { LearnedWords } from "./admin-wire-types.js";

/** Words listed for one tool at most, strongest first. */
const MAX_LEARNED_WORDS = 50;

/** Whether learned words are kept readable: learning on, and `learning.recordTerms` set. */
export function wordsKept(engine: ToolSearchEngine): boolean {
  return engine.learning !== undefined && engine.settings.learning.recordTerms;
}

export function learnedWords(engine: ToolSearchEngine, scope: string, tool: string): LearnedWords {
  const learning = engine.learning;
  if (learning === undefined) return { kept: false, why: "learning from use is off (tools.toolSearch.learning)", words: [] };
  if (!wordsKept(engine)) {
    return {
      kept: false,
      why: "learned words are not kept readable; set tools.toolSearch.learning.recordTerms: true to see them here (only counts are shown otherwise)",
      words: [],
    };
  }
  const words = learning.words(scope, tool, MAX_LEARNED_WORDS).map(({ term, count, sessions }) => ({ term, count: Math.round(count * 1000) / 1000, sessions }));
  return { kept: true, words };
}
