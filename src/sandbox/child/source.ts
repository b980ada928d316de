/**
 * Builds the child's `--eval` source from the real functions in this folder (codec.ts, realm.ts,
 * main.ts) with Function.prototype.toString, so the bootstrap is type-checked TypeScript and not
 * a hand-written string. The child has no fs grant and cannot import anything but builtins, so
 * the source must be complete in itself; it comes to about 16 KB.
 *
 * The comment marker carries the pool's tag, which lets tests and operators find a pool's
 * children in /proc (pool/processes.ts).
 */
import { createChildCodec } from "./codec.js";
import { childMain } from "./main.js";
import { setupRealm } from "./realm.js";
import { InternalError } from "../../errors.js";

export const SOURCE_MARKER = "toolsearch-sandbox";

/**
 * Drops indentation, whole-line `//` comments and `/** … *\/` blocks from serialised function
 * source. Safe for the child's functions because none of them has a multi-line string or
 * template literal (the integration tests run every path of the compacted source).
 */
function compact(source: string): string {
  const out: string[] = [];
  let inBlock = false;
  for (const raw of source.split("\n")) {
    const line = raw.trim();
    if (inBlock) {
      inBlock = !line.endsWith("*/");
      continue;
    }
    if (line.startsWith("/**")) {
      inBlock = !line.endsWith("*/");
      continue;
    }
    if (line !== "" && !line.startsWith("//")) out.push(line);
  }
  return out.join("\n");
}

/**
 * The complete `--eval` source for one pool's children. `codecExpression` replaces the small
 * msgpack codec with another expression of the same interface (bench/code-mode inlines
 * msgpackr's to compare their start-up cost).
 */
export function childSource(tag: string, codecExpression = `(${compact(createChildCodec.toString())})()`): string {
  // The pool's tag is random hex: anything else is a caller's bug (it would break out of the comment).
  if (!/^[a-z0-9-]+$/.test(tag)) throw new InternalError(`child source tag must be [a-z0-9-]+; got ${JSON.stringify(tag)}`);
  const realm = `"use strict";(${compact(setupRealm.toString())})`;
  return `"use strict";/*${SOURCE_MARKER}:${tag}*/(${compact(childMain.toString())})(require,${codecExpression},${JSON.stringify(realm)});`;
}
