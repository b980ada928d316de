#!/usr/bin/env node
// Lines over MAX characters, as ESLint's max-len with ignoreStrings, ignoreTemplateLiterals,
// ignoreRegExpLiterals and ignoreUrls: a line is left alone when a string, template or regexp
// literal touches it, or when it holds a URL. oxlint has no max-len (it leaves formatting to
// formatters), and prettier (npm run lint checks it, npm run format applies it) keeps long
// strings whole, so this small scanner checks what it leaves.
// Usage: node scripts/max-len.mjs [folder or file ...] (default: the folders npm run lint checks).
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";

const MAX = 160;
const EXTENSIONS = /\.(?:ts|mts|cts|js|mjs|cjs)$/;
// src/generated/validators: ajv's standalone code (scripts/generate-validators.ts), one long line a function.
const SKIP = new Set(["node_modules", "dist", "coverage", ".cache", "src/generated/validators"]);
const ROOTS = ["src", "bench", "wasm", "scripts", "examples", "test", "console", "vitest.config.ts"];

/** Lines (0-based) that a string, template or regexp literal touches. */
export function literalLines(text) {
  const lines = new Set();
  let line = 0;
  let i = 0;
  let last = ""; // the last significant character of code, to tell a regexp from a division
  const mark = (from, to) => {
    for (let l = from; l <= to; l++) lines.add(l);
  };
  const templates = []; // brace depth of each open `${` of a template
  while (i < text.length) {
    const c = text[i];
    if (c === "\n") {
      line++;
      i++;
      continue;
    }
    if (c === "/" && text[i + 1] === "/") {
      while (i < text.length && text[i] !== "\n") i++;
      continue;
    }
    if (c === "/" && text[i + 1] === "*") {
      const end = text.indexOf("*/", i + 2);
      const stop = end < 0 ? text.length : end + 2;
      for (let k = i; k < stop; k++) if (text[k] === "\n") line++;
      i = stop;
      continue;
    }
    if (c === "'" || c === '"' || c === "`" || (c === "}" && templates.length > 0 && templates[templates.length - 1] === 0)) {
      const from = line;
      const quote = c === "}" ? "`" : c;
      if (c === "}") templates.pop();
      i++;
      for (; i < text.length; i++) {
        const d = text[i];
        if (d === "\\") {
          if (text[i + 1] === "\n") line++;
          i++;
        } else if (d === "\n") line++;
        else if (d === quote) break;
        else if (quote === "`" && d === "$" && text[i + 1] === "{") {
          templates.push(0);
          i++;
          break;
        }
      }
      mark(from, line);
      i++;
      last = quote;
      continue;
    }
    if (
      c === "/" &&
      (last === "" ||
        "(,=:[!&|?{};+-*%<>~^".includes(last) ||
        /\b(?:return|typeof|case|in|of|void|yield|await)$/.test(text.slice(Math.max(0, i - 8), i).trimEnd()))
    ) {
      let inClass = false;
      for (i++; i < text.length && text[i] !== "\n"; i++) {
        if (text[i] === "\\") i++;
        else if (text[i] === "[") inClass = true;
        else if (text[i] === "]") inClass = false;
        else if (text[i] === "/" && !inClass) break;
      }
      mark(line, line);
      i++;
      last = "/";
      continue;
    }
    if (templates.length > 0) {
      if (c === "{") templates[templates.length - 1]++;
      else if (c === "}") templates[templates.length - 1]--;
    }
    // A `!` after an operand is TypeScript's non-null assertion: still an operand (x! / y divides).
    if (!/\s/.test(c) && !(c === "!" && last === "a")) last = /[\w$)\]]/.test(c) ? "a" : c;
    i++;
  }
  return lines;
}

/** "file:line: N characters" for each line over MAX that no literal or URL excuses. */
export function longLines(file, text) {
  const lines = text.split("\n");
  const literals = literalLines(text);
  const out = [];
  lines.forEach((content, n) => {
    if (content.length <= MAX || literals.has(n) || /\b[a-z][a-z0-9+.-]*:\/\/\S/i.test(content)) return;
    out.push(`${file}:${n + 1}: ${content.length} characters (max ${MAX})`);
  });
  return out;
}

function* files(path) {
  const rel = relative(process.cwd(), path).split("\\").join("/");
  if (SKIP.has(rel) || SKIP.has(rel.split("/").pop() ?? "")) return;
  const stat = statSync(path, { throwIfNoEntry: false });
  if (stat === undefined) return;
  if (stat.isFile()) {
    if (EXTENSIONS.test(path)) yield rel;
    return;
  }
  for (const entry of readdirSync(path).sort()) yield* files(join(path, entry));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const roots = process.argv.length > 2 ? process.argv.slice(2) : ROOTS;
  const problems = [];
  for (const root of roots) for (const file of files(root)) problems.push(...longLines(file, readFileSync(file, "utf8")));
  for (const p of problems) console.log(p);
  if (problems.length > 0) {
    console.log(`max-len: ${problems.length} line(s) over ${MAX} characters`);
    process.exit(1);
  }
}
