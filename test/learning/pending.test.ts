/**
 * Observations waiting for the store are bounded per tenant: a flood (or a store that cannot
 * keep up) drops the flooding tenant's oldest, never what another tenant's sessions taught.
 */
import { describe, expect, it } from "vitest";
import type { Observation } from "../../src/learning/model.js";
import { PendingObservations } from "../../src/learning/pending.js";
import { agentScopeKey, SHARED_SCOPE } from "../../src/learning/scope-keys.js";

const seen = (scope: string, contributor: string, tool: string): Observation => ({ scope, tool, terms: ["ledger"], contributor, at: 0 });

describe("pending observations", () => {
  it("a tenant's flood drops its own oldest, never another tenant's", () => {
    const pending = new PendingObservations(10);
    const victim = agentScopeKey("main", "tenant-a");
    const flooder = agentScopeKey("main", "tenant-b");
    for (let i = 0; i < 3; i++) pending.push(seen(victim, `s${i}`, `core:v${i}`));
    for (let i = 0; i < 100; i++) pending.push(seen(flooder, `m${i}`, `core:f${i}`));
    expect(pending.size).toBe(10);
    const kept = pending.drain();
    expect(kept.filter((o) => o.scope === victim).map((o) => o.tool)).toEqual(["core:v0", "core:v1", "core:v2"]);
    // The flooder keeps its newest.
    expect(kept.filter((o) => o.scope === flooder).map((o) => o.tool)).toEqual(Array.from({ length: 7 }, (_, i) => `core:f${93 + i}`));
    expect(pending.size).toBe(0);
  });

  it("in the shared scope each contributor (a tenant there) holds its own share", () => {
    const pending = new PendingObservations(4);
    pending.push(seen(SHARED_SCOPE, "tenant-a", "core:a"));
    for (let i = 0; i < 20; i++) pending.push(seen(SHARED_SCOPE, "tenant-b", `core:b${i}`));
    expect([...pending].map((o) => o.tool)).toContain("core:a");
  });

  it("a failed write puts back what it drained ahead of what came in meanwhile", () => {
    const pending = new PendingObservations(10);
    const scope = agentScopeKey("main", undefined);
    pending.push(seen(scope, "s1", "core:old"));
    const drained = pending.drain();
    pending.push(seen(scope, "s2", "core:new"));
    pending.restore(drained);
    expect([...pending].map((o) => o.tool)).toEqual(["core:old", "core:new"]);
  });
});
