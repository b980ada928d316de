/**
 * The keywords option schemas add to JSON Schema: `methods: ["run", "report"]` accepts an object
 * with those functions (pools, sinks, sources), `function: true` a function (hooks). Written as
 * code generators, not validate callbacks, so that the same definitions serve the options ajv at
 * run time and the precompiled validators (scripts/generate-validators.ts), which cannot call
 * back into a function defined here.
 */
import type { _ as codeTemplate, CodeKeywordDefinition, KeywordCxt } from "ajv";

/** The keyword definitions, built with ajv's `_` code template (passed in: ajv itself loads lazily). */
export function optionKeywords(_: typeof codeTemplate): CodeKeywordDefinition[] {
  return [
    {
      keyword: "methods",
      schemaType: "array",
      code(cxt: KeywordCxt) {
        const { data } = cxt;
        const names = cxt.schema as string[];
        let notAnObject = _`typeof ${data} !== "object" || ${data} === null`;
        for (const name of names) notAnObject = _`${notAnObject} || typeof ${data}[${name}] !== "function"`;
        cxt.fail(notAnObject);
      },
    },
    {
      keyword: "function",
      schemaType: "boolean",
      code(cxt: KeywordCxt) {
        if (cxt.schema === true) cxt.fail(_`typeof ${cxt.data} !== "function"`);
      },
    },
  ];
}
