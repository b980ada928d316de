/**
 * Every error src/ throws is in the taxonomy (src/errors.ts): a ToolSearchError subclass with a
 * stable code, never a bare Error, TypeError or RangeError, and no class of its own straight off
 * Error. And one helper reads the message of anything thrown (errorMessage), so no file has its
 * own `instanceof Error ? e.message : String(e)`.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "./import-graph.js";

const SRC = join(ROOT, "src");
const TAXONOMY = "src/errors.ts";

/** Files that must keep a built-in error, each with why. */
const ALLOWED: Readonly<Record<string, string>> = {
  // Serialised with Function.prototype.toString into the sandbox child's --eval source (child/source.ts):
  // it may refer to nothing outside its own body, so it cannot import errors.ts. Its errors stay in the child.
  "src/sandbox/child/codec.ts": "the child's codec runs in the child, which imports nothing",
};

const BARE_ERROR = /\bnew (?:Error|TypeError|RangeError)\(|\bextends Error\b/;
/** `e instanceof Error ? e.message… : String(e)`: errorMessage's body, written again. */
const OWN_MESSAGE_OF = /instanceof Error\s*\?[^?\n]*\.message[^?\n]*:\s*String\(/;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

function hits(pattern: RegExp): string[] {
  return sourceFiles(SRC).flatMap((file) => {
    const name = relative(ROOT, file).split("\\").join("/");
    if (name === TAXONOMY) return [];
    return readFileSync(file, "utf8")
      .split("\n")
      .flatMap((line, i) => (pattern.test(line) ? [`${name}:${i + 1}: ${line.trim()}`] : []));
  });
}

describe("the error taxonomy", () => {
  it("the patterns catch what they are for (and not errors.ts's subclasses or a stack print)", () => {
    for (const line of ['throw new Error("x")', "fail(new TypeError(`y`))", "throw new RangeError(why)", "export class FooError extends Error {}"]) {
      expect(BARE_ERROR.test(line), line).toBe(true);
    }
    for (const line of [
      'throw new ConfigInvalidError("x")',
      "class A extends ToolFailedError {}",
      "value instanceof ErrorCtor",
      "class B extends ErrorBase {}",
    ]) {
      expect(BARE_ERROR.test(line), line).toBe(false);
    }
    expect(OWN_MESSAGE_OF.test("const m = error instanceof Error ? error.message : String(error);")).toBe(true);
    expect(OWN_MESSAGE_OF.test('const m = e instanceof Error ? e.message.replace(/^x: /, "") : String(e);')).toBe(true);
    expect(OWN_MESSAGE_OF.test("console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));")).toBe(false);
  });

  it("src/ throws no bare Error, TypeError or RangeError and has no class straight off Error, outside errors.ts", () => {
    const found = hits(BARE_ERROR).filter((hit) => !Object.hasOwn(ALLOWED, hit.slice(0, hit.indexOf(":"))));
    expect(found).toEqual([]);
  });

  it("each allowed file still needs its entry", () => {
    const needed = new Set(hits(BARE_ERROR).map((hit) => hit.slice(0, hit.indexOf(":"))));
    expect(Object.keys(ALLOWED).filter((file) => !needed.has(file))).toEqual([]);
  });

  it("only errors.ts reads the message of anything thrown (errorMessage)", () => {
    expect(hits(OWN_MESSAGE_OF)).toEqual([]);
    expect(OWN_MESSAGE_OF.test(readFileSync(join(ROOT, TAXONOMY), "utf8"))).toBe(true);
  });
});
