/**
 * Builds the child's `--eval` source from the real functions in this folder (codec.ts, realm.ts,
 * main.ts) with Function.prototype.toString, so the bootstrap is type-checked TypeScript and not
 * a hand-written string. The child has no fs grant and cannot import anything but builtins, so
 * the source must be complete in itself; it comes to about 16 KB.
 *
 * The comment marker carries the pool's tag, which lets tests and operators find a pool's
 * children in /proc (pool/processes.ts).
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { createChildCodec } from "./codec.js";
import { childMain } from "./main.js";
import { setupRealm } from "./realm.js";

export const SOURCE_MARKER = "toolsearch-sandbox";

/** Which msgpack codec the child inlines: the small one (default) or msgpackr's no-eval build (for the bench). */
export type ChildCodecChoice = "mini" | "msgpackr";

let msgpackrSource: string | undefined;

/** msgpackr's no-eval UMD build, wrapped to return a codec with the same interface as createChildCodec. */
function msgpackrCodecExpression(): string {
  if (msgpackrSource === undefined) {
    const require = createRequire(import.meta.url);
    const file = join(dirname(require.resolve("msgpackr")), "index-no-eval.min.js");
    msgpackrSource = readFileSync(file, "utf8");
  }
  return (
    "(function(){var module={exports:{}};var exports=module.exports;\n" +
    msgpackrSource +
    "\nvar p=new module.exports.Packr({useRecords:false,variableMapSize:true,mapsAsObjects:true});" +
    "return{encode:function(v){return p.pack(v)},decode:function(b){return p.unpack(b)}}})()"
  );
}

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

/** The complete `--eval` source for one pool's children. */
export function childSource(tag: string, codec: ChildCodecChoice = "mini"): string {
  if (!/^[a-z0-9-]+$/.test(tag)) throw new TypeError(`child source tag must be [a-z0-9-]+; got ${JSON.stringify(tag)}`);
  const codecExpression = codec === "msgpackr" ? msgpackrCodecExpression() : `(${compact(createChildCodec.toString())})()`;
  const realm = `"use strict";(${compact(setupRealm.toString())})`;
  return `"use strict";/*${SOURCE_MARKER}:${tag}*/(${compact(childMain.toString())})(require,${codecExpression},${JSON.stringify(realm)});`;
}
