/**
 * What learning reports of itself: its counts, its scopes' sizes, a tool's learned words
 * (learner.ts, which re-exports these). Apart from the learner, which needs Node: the admin
 * API's wire types (src/admin/admin-wire-types.ts), which the web console compiles without
 * Node's types, carry them.
 */

export interface LearningStats {
  records: number;
  active: number;
  tools: number;
  scopes: number;
  /** Records changed here that the store does not hold yet. */
  pending: number;
  store: string;
  /** Whether what the store held at start is merged in yet (it loads in the background). */
  loaded: boolean;
  /** Whether request words are kept in clear (`learning.recordTerms`), or as keyed hashes. */
  recordTerms: boolean;
}

/** One learning scope's size (`engine.learning.scopes()`): `scope` is its key (agent:<id>, tenant:<t>:agent:<id>, token:<t>, shared). */
export interface LearningScopeStats {
  scope: string;
  /** The tenant whose share its records count against ("" for runs with no tenant, "shared" for the shared scope). */
  tenant: string;
  records: number;
  /** Records past `minSessions`: the ones ranking uses. */
  active: number;
  tools: number;
}

/** One learned word of a tool (Learner.words): its decayed count and how many sessions gave it. */
export interface LearnedWord {
  term: string;
  count: number;
  sessions: number;
}
