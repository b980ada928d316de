/**
 * msgpackr's no-eval UMD build as a child codec expression (the interface of the child's small
 * codec, src/sandbox/child/codec.ts), for childSource's `codecExpression`: the code-mode bench
 * compares the start-up cost of the two. The product's children always inline the small one.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

let msgpackrSource: string | undefined;

export function msgpackrCodecExpression(): string {
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
