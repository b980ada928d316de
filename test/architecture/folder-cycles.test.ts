import { describe, expect, it } from "vitest";
import { cyclesOf, cyclicComponents, describeCycle, folderGraph, readImports } from "./import-graph.js";

describe("folders of src/", () => {
  it("import each other without cycles", () => {
    const graph = folderGraph(readImports());
    const cycles = cyclicComponents(graph).flatMap((component) => cyclesOf(graph, component));
    const report = cycles.map((cycle) => describeCycle(graph, cycle)).join("\n\n");
    expect(report, `folder cycles (move the shared code down a layer):\n\n${report}`).toBe("");
  });
});
