import { describe, expect, it } from "vitest";
import { folderGraph, readImports } from "./import-graph.js";

/**
 * What is built on the engine: the config file and the servers it starts (auth, http, the
 * gateway, the MCP face, the operator's admin API, metrics and console, the command line, the demo), the
 * agent loop, the mock provider, the AI SDK entry. Every other folder of src/ is part of the library createToolSearch is made of, and
 * imports none of these.
 */
const ABOVE_THE_ENGINE = ["admin", "agent", "ai-sdk", "auth", "cli", "config", "console", "demo", "gateway", "http", "mcpface", "metrics", "mock-provider"];

/** The two faces of a config file: neither imports the other (what both need lives below them). */
const FACES = ["gateway", "mcpface"];

describe("layers of src/", () => {
  const graph = folderGraph(readImports());
  const importsOf = (from: string, to: readonly string[]) =>
    [...(graph.edges.get(from) ?? [])]
      .filter(([target]) => to.includes(target))
      .flatMap(([, sites]) => sites.map((s) => `${s.file}:${s.line} imports "${s.specifier}"`));

  it("the engine's folders import nothing built on the engine", () => {
    const found = graph.nodes.filter((node) => !ABOVE_THE_ENGINE.includes(node)).flatMap((node) => importsOf(node, ABOVE_THE_ENGINE));
    expect(found).toEqual([]);
  });

  it("the gateway and the MCP face do not import each other", () => {
    const found = FACES.flatMap((face) =>
      importsOf(
        face,
        FACES.filter((other) => other !== face),
      ),
    );
    expect(found).toEqual([]);
  });

  it("knows every folder it names", () => {
    expect([...ABOVE_THE_ENGINE, ...FACES].filter((name) => !graph.nodes.includes(name))).toEqual([]);
  });
});
