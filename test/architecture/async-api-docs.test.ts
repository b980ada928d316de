/**
 * The docs use the engine's async methods as what they return, a Promise: `engine.x()` whose
 * result is read in place (`x().field`, `x()[…]`) must be awaited first, `(await engine.x()).field`.
 * The methods are read from the engine's class, so one made async later is checked too.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "../..");

function asyncEngineMethods(): string[] {
  const source = readFileSync(path.join(ROOT, "src/engine/engine.ts"), "utf8");
  return [...source.matchAll(/^ {2}async (\w+)\(/gm)].map((match) => match[1]!);
}

function docs(): Array<{ file: string; text: string }> {
  const files = [
    "README.md",
    ...readdirSync(path.join(ROOT, "docs"))
      .filter((name) => name.endsWith(".md"))
      .map((name) => path.join("docs", name)),
  ];
  return files.map((file) => ({ file, text: readFileSync(path.join(ROOT, file), "utf8") }));
}

describe("the docs and the engine's async methods", () => {
  it("finds the engine's async methods", () => {
    expect(asyncEngineMethods()).toEqual(expect.arrayContaining(["prepareRun", "sandboxReport", "close"]));
  });

  it("never read an async method's result in place without await", () => {
    const methods = asyncEngineMethods().join("|");
    const readInPlace = new RegExp(String.raw`\b(${methods})\(\)(\.\w|\[)`, "g");
    const misuses = docs().flatMap(({ file, text }) =>
      text.split("\n").flatMap((line, i) => [...line.matchAll(readInPlace)].map((match) => `${file}:${i + 1}: ${match[0]}`)),
    );
    expect(misuses).toEqual([]);
  });
});
