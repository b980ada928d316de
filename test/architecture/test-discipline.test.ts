/**
 * A test that cannot pass without checking: no test file may
 * - call `expect` only on one branch (inside an `if`, a `?:`, the right of `&&` / `||` / `??`, a
 *   `switch` case or a `catch`): on the other branch the test passes having checked nothing;
 * - return early from a test (a `return` under a condition or a loop in the test's own body),
 *   unless the same branch calls `ctx.skip(…)`: vitest then reports the test as skipped, with
 *   its reason, instead of passed;
 * - define a test under a condition (`if (x) it(…)`): the test vanishes from the report;
 *   `it.skipIf` / `describe.runIf` say that it was skipped.
 * The files are parsed (oxc-parser), so a comment or a string that looks like code counts for nothing.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { parseSync } from "oxc-parser";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "../..");

type Node = { type: string; start: number; [key: string]: unknown };

function isNode(value: unknown): value is Node {
  return typeof value === "object" && value !== null && typeof (value as { type?: unknown }).type === "string";
}

/** Each node with its ancestors (nearest last) and the key each was reached by. */
function walk(node: Node, visit: (node: Node, ancestors: readonly Node[], keys: readonly string[]) => void, ancestors: Node[] = [], keys: string[] = []): void {
  visit(node, ancestors, keys);
  for (const [key, value] of Object.entries(node)) {
    for (const child of Array.isArray(value) ? value : [value]) {
      if (!isNode(child)) continue;
      ancestors.push(node);
      keys.push(key);
      walk(child, visit, ancestors, keys);
      ancestors.pop();
      keys.pop();
    }
  }
}

/** The identifier a callee chain starts at: `it` for `it.each([...])("x", fn)`, `expect` for `expect.soft(x)`. */
function rootName(callee: unknown): string | undefined {
  let node = callee;
  while (isNode(node)) {
    if (node.type === "Identifier") return node.name as string;
    node = node.type === "MemberExpression" ? node.object : node.type === "CallExpression" ? node.callee : undefined;
  }
  return undefined;
}

const isCall = (node: Node, names: readonly string[]): boolean => node.type === "CallExpression" && names.includes(rootName(node.callee) ?? "");
/** `expect(x)` or `expect.soft(x)` itself, not the matcher call chained on it. */
function isExpect(node: Node): boolean {
  if (node.type !== "CallExpression" || !isNode(node.callee)) return false;
  const callee = node.callee;
  return (
    (callee.type === "Identifier" && callee.name === "expect") ||
    (callee.type === "MemberExpression" && rootName(callee.object) === "expect" && (callee.object as Node).type === "Identifier")
  );
}
const isFunction = (node: Node): boolean => ["ArrowFunctionExpression", "FunctionExpression", "FunctionDeclaration"].includes(node.type);
const TESTS = ["it", "test"];

/** Whether the node at `depth` of the chain sits on one branch only of the ancestor above it. */
function branchAt(ancestors: readonly Node[], keys: readonly string[], depth: number): boolean {
  const parent = ancestors[depth]!;
  const key = keys[depth]!;
  switch (parent.type) {
    case "IfStatement":
      return key === "consequent" || key === "alternate";
    case "ConditionalExpression":
      return key === "consequent" || key === "alternate";
    case "LogicalExpression":
      return key === "right";
    case "SwitchCase":
    case "CatchClause":
      return true;
    default:
      return false;
  }
}

const CONDITIONS = ["IfStatement", "SwitchStatement", "ForStatement", "ForOfStatement", "ForInStatement", "WhileStatement", "DoWhileStatement", "TryStatement"];

/** A `return` with a condition or loop between it and its function, when that function is a test's callback. */
function earlyReturn(ancestors: readonly Node[]): boolean {
  const fn = ancestors.findLastIndex(isFunction);
  if (fn < 1 || !isCall(ancestors[fn - 1]!, TESTS)) return false;
  const condition = ancestors.findIndex((node, depth) => depth > fn && CONDITIONS.includes(node.type));
  return condition !== -1 && !skipsInBranch(ancestors, condition);
}

/** The branch that returns calls `….skip(…)` before it (vitest's `ctx.skip`, which reports the reason). */
function skipsInBranch(ancestors: readonly Node[], depth: number): boolean {
  let found = false;
  for (const node of ancestors.slice(depth)) {
    walk(node, (inner) => {
      if (inner.type === "CallExpression" && isNode(inner.callee) && inner.callee.type === "MemberExpression") {
        const property = inner.callee.property as Node;
        if (property.type === "Identifier" && property.name === "skip") found = true;
      }
    });
    if (found) return true;
  }
  return false;
}

export interface Finding {
  file: string;
  line: number;
  rule: "conditional expect" | "early return" | "conditional test";
}

export function findings(file: string, source: string): Finding[] {
  const { program, errors } = parseSync(file, source);
  if (errors.length > 0) throw new Error(`${file} does not parse: ${errors[0]!.message}`);
  const lineOf = (offset: number) => source.slice(0, offset).split("\n").length;
  const found: Finding[] = [];
  walk(program as unknown as Node, (node, ancestors, keys) => {
    const branched = () => ancestors.some((_, depth) => branchAt(ancestors, keys, depth));
    if (isExpect(node) && branched()) found.push({ file, line: lineOf(node.start), rule: "conditional expect" });
    if (isCall(node, TESTS) && !isCall(ancestors.at(-1) ?? node, TESTS) && branched()) found.push({ file, line: lineOf(node.start), rule: "conditional test" });
    if (node.type === "ReturnStatement" && earlyReturn(ancestors)) found.push({ file, line: lineOf(node.start), rule: "early return" });
  });
  return found;
}

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "fixtures" ? [] : testFiles(full);
    return entry.name.endsWith(".ts") ? [full] : [];
  });
}

describe("tests that cannot pass without checking", () => {
  it("finds each kind in a sample, and passes ctx.skip and plain code", () => {
    const sample = [
      'it("a", () => { if (x) expect(1).toBe(1); });',
      'it("b", () => { const y = x ? expect(1) : 0; ok && expect(2).toBe(2); });',
      'it("c", () => { if (!x) return; expect(1).toBe(1); });',
      'if (x) it("d", () => {});',
      'it("e", (ctx) => { if (!x) { ctx.skip("no x here"); return; } expect(1).toBe(1); });',
      'it.each([1])("f", (n) => { for (const m of [n]) expect(m).toBe(n); return undefined; });',
      "function helper() { if (x) return 1; return 2; }",
      'it("g", () => { try { run(); } catch (error) { expect(error).toBeDefined(); } });',
    ].join("\n");
    expect(findings("sample.ts", sample).map((f) => `${f.line} ${f.rule}`)).toEqual([
      "1 conditional expect",
      "2 conditional expect",
      "2 conditional expect",
      "3 early return",
      "4 conditional test",
      "8 conditional expect",
    ]);
  });

  it("holds in every file under test/", () => {
    const all = testFiles(path.join(ROOT, "test")).flatMap((file) => findings(path.relative(ROOT, file), readFileSync(file, "utf8")));
    expect(all.map((f) => `${f.file}:${f.line} ${f.rule}`)).toEqual([]);
  });
});
