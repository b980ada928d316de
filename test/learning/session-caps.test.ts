/**
 * The per-session cap (maxToolsPerSession) remembers a bounded number of sessions, and that
 * bound is shared fairly: a tenant minting sessions makes its own old sessions forget their
 * caps, never another tenant's.
 */
import { describe, expect, it } from "vitest";
import { Learner } from "../../src/learning/learner.js";
import { DEFAULT_LEARNING } from "../../src/learning/options.js";
import { agentScopeKey } from "../../src/learning/scope-keys.js";
import { SessionCaps } from "../../src/learning/session-caps.js";
import { memoryLearningStore } from "../../src/learning/store.js";

const REQUEST = "zorblat the quarterly ledger";

function learner(maxTrackedSessions: number): Learner {
  return new Learner({ ...DEFAULT_LEARNING, enabled: true, maxToolsPerSession: 1, maxTrackedSessions }, memoryLearningStore());
}

describe("the per-session cap's bookkeeping", () => {
  it("a tenant minting sessions does not make another tenant's session forget its cap", () => {
    const l = learner(4);
    const victim = agentScopeKey("main", "tenant-a");
    expect(l.teach(victim, "session-1", REQUEST, "core:one")).toBe(true);
    expect(l.teach(victim, "session-1", REQUEST, "core:two")).toBe(false);
    const flooder = agentScopeKey("main", "tenant-b");
    for (let i = 0; i < 50; i++) expect(l.teach(flooder, `minted-${i}`, REQUEST, "core:one")).toBe(true);
    // Still remembered: the cap still refuses a second tool.
    expect(l.teach(victim, "session-1", REQUEST, "core:two")).toBe(false);
  });

  it("the tenant remembering the most forgets its own least recently seen session first", () => {
    const caps = new SessionCaps(3);
    caps.taught("a", "a1").add("t");
    caps.taught("b", "b1").add("t");
    caps.taught("b", "b2").add("t");
    caps.taught("b", "b1"); // b1 seen again: b2 is now b's oldest
    caps.taught("c", "c1");
    expect(caps.size).toBe(3);
    expect(caps.taught("a", "a1").has("t")).toBe(true);
    expect(caps.taught("b", "b1").has("t")).toBe(true);
    expect(caps.taught("b", "b2").has("t")).toBe(false);
  });
});
