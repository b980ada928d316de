/**
 * The README stays a front page: under 12,000 characters, its first screen the two commands of a
 * fresh machine, its library example the file examples/ ships (test/packaging runs both), and
 * every relative link of the README and docs/ names a file and a heading that exist, so a
 * section moved into docs/ leaves no link behind.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { readmeLibraryExample } from "../support/readme-example.js";

const ROOT = path.resolve(import.meta.dirname, "../..");
const README_MAX_CHARS = 12_000;

const read = (file: string): string => readFileSync(path.join(ROOT, file), "utf8");

function markdownFiles(): string[] {
  const docs = readdirSync(path.join(ROOT, "docs"))
    .filter((name) => name.endsWith(".md"))
    .map((name) => path.join("docs", name));
  return ["README.md", "bench/README.md", ...docs];
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

function anchorsIn(file: string): Set<string> {
  const text = read(file).replace(/```[\s\S]*?```/g, "");
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((match) => anchorOf(match[1]!)));
}

describe("README.md", () => {
  it(`holds at most ${README_MAX_CHARS.toLocaleString("en")} characters`, () => {
    expect([...read("README.md")].length).toBeLessThanOrEqual(README_MAX_CHARS);
  });

  it("gives the two commands of a fresh machine on its first screen", () => {
    const firstScreen = read("README.md").split("\n").slice(0, 25).join("\n");
    expect(firstScreen).toContain("npm ci && npm start");
    expect(firstScreen).toContain("npm ci && npm test");
  });

  it("shows examples/library.mjs as its library example, character for character", () => {
    expect(readmeLibraryExample(read("README.md"))).toBe(read("examples/library.mjs"));
  });
});

describe("links in README.md, bench/README.md and docs/", () => {
  it("name files and headings that exist", () => {
    const broken = markdownFiles().flatMap((file) => {
      const text = read(file).replace(/```[\s\S]*?```/g, "");
      return [...text.matchAll(/\]\(([^)\s]+)\)/g)]
        .map((match) => match[1]!)
        .filter((target) => !/^[a-z]+:/.test(target))
        .filter((target) => {
          const [pathPart, anchor] = target.split("#") as [string, string | undefined];
          const resolved = pathPart === "" ? file : path.join(path.dirname(file), pathPart);
          if (!existsSync(path.join(ROOT, resolved))) return true;
          return anchor !== undefined && resolved.endsWith(".md") && !anchorsIn(resolved).has(anchor);
        })
        .map((target) => `${file}: ${target}`);
    });
    expect(broken).toEqual([]);
  });
});
