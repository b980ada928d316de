/**
 * The read-request safety rule's parts (src/search/ranking/read-safety.ts): which tools are destructive
 * (annotations first, else the name's verb), which requests only ask to read, and the order a
 * read request gets (a destructive hit below the comparable non-destructive ones, no further).
 */
import { describe, expect, it } from "vitest";
import { COMPARABLE, isDestructive, isReadRequest, safeOrder, type SafetyMove } from "../../../src/search/ranking/read-safety.js";

describe("isDestructive", () => {
  it("reads the verb of any word of the name, not past forms or nouns", () => {
    for (const name of ["delete_relations", "file_delete", "force_terminate", "removeUser", "git-reset", "kubectl_delete", "purgeCache", "rm"]) {
      expect(isDestructive({ name }), name).toBe(true);
    }
    for (const name of ["read_graph", "list_deleted_items", "deletion_status", "search_nodes", "get-env", "clearance_level"]) {
      expect(isDestructive({ name }), name).toBe(false);
    }
  });

  it("takes destructiveHint: true whatever the name, and readOnlyHint: true clears the name's verb", () => {
    expect(isDestructive({ name: "move_file", annotations: { readOnlyHint: false, destructiveHint: true } })).toBe(true);
    expect(isDestructive({ name: "move_file" })).toBe(false);
    expect(isDestructive({ name: "clear_filter_view", annotations: { readOnlyHint: true } })).toBe(false);
    // destructiveHint: false does not clear a destructive verb: a hint may only add caution.
    expect(isDestructive({ name: "delete_draft", annotations: { destructiveHint: false } })).toBe(true);
  });
});

describe("isReadRequest", () => {
  it("is a request whose first content word reads or asks", () => {
    for (const q of [
      "list everything in the knowledge graph",
      "Show the contents of notes.txt",
      "what are my meetings on monday",
      "get my five most recent emails",
      "Can you find the invoices from March?",
      "please look up Alice",
      "I want to see the files in the folder",
      "which directories am I allowed to access",
    ]) {
      expect(isReadRequest(q), q).toBe(true);
    }
  });

  it("is not a request that asks to change or destroy anything, nor one without a reading verb", () => {
    for (const q of [
      "delete a person",
      "show me the files I can delete",
      "find the old branches and remove them",
      "get rid of the staging database",
      "create a new entity for Alice",
      "move notes.txt to the archive",
      "knowledge graph entities",
      "",
    ]) {
      expect(isReadRequest(q), q).toBe(false);
    }
  });
});

describe("safeOrder", () => {
  const destructive = (id: string) => id.startsWith("delete");
  const hits = (...pairs: Array<[string, number]>) => pairs.map(([id, score]) => ({ id, score }));

  it("puts a destructive hit below every non-destructive one scoring at least COMPARABLE of it, with that lowered score", () => {
    const moves: SafetyMove[] = [];
    const out = safeOrder(hits(["delete_relations", 1], ["open_nodes", 0.9], ["read_graph", 0.6], ["echo", 0.4]), { destructive, moved: (m) => moves.push(m) });
    expect(out.map((h) => h.id)).toEqual(["open_nodes", "read_graph", "delete_relations", "echo"]);
    expect(out[2]!.score).toBe(COMPARABLE);
    expect(moves).toEqual([{ id: "delete_relations", from: 1, to: 3 }]);
  });

  it("keeps a destructive hit first when nothing else matches comparably, and destructive hits in their order", () => {
    const moves: SafetyMove[] = [];
    const out = safeOrder(hits(["delete_a", 1], ["delete_b", 0.95], ["weak_match", 0.2]), { destructive, moved: (m) => moves.push(m) });
    expect(out.map((h) => h.id)).toEqual(["delete_a", "delete_b", "weak_match"]);
    expect(moves).toEqual([]);
  });

  it("leaves a list without destructive hits as it is", () => {
    const list = hits(["a", 1], ["b", 0.5]);
    expect(safeOrder(list, { destructive })).toEqual(list);
  });
});
