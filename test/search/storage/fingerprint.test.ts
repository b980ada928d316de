/** fingerprintDocs: a multiset hash of the indexed content, memoised per array and per doc. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fingerprintDocs } from "../../../src/search/storage/fingerprint.js";
import type { SearchDoc } from "../../../src/search/types.js";

const text = fc.string({ maxLength: 6 });
const doc: fc.Arbitrary<SearchDoc> = fc.record({
  id: text,
  name: text,
  source: fc.constantFrom("core" as const, "plugin" as const, "mcp" as const, "client" as const),
  toolset: text,
  description: text,
  params: fc.array(fc.record({ name: text, description: text }), { maxLength: 2 }),
});
const clone = (d: SearchDoc): SearchDoc => ({ ...d, params: d.params.map((p) => ({ ...p })) });

describe("fingerprintDocs", () => {
  it("ignores order and object identity, sees content (property)", () => {
    fc.assert(
      fc.property(fc.array(doc, { minLength: 1, maxLength: 6 }), fc.nat(), (docs, at) => {
        const fingerprint = fingerprintDocs(docs);
        expect(fingerprintDocs([...docs].reverse().map(clone))).toBe(fingerprint);
        // One character more in one field of one doc changes it.
        const i = at % docs.length;
        const changed = docs.map((d, j) => (j === i ? { ...clone(d), description: `${d.description}!` } : d));
        expect(fingerprintDocs(changed)).not.toBe(fingerprint);
        // A doc twice is not the same catalog as the doc once.
        expect(fingerprintDocs([...docs, docs[i]!])).not.toBe(fingerprint);
      }),
    );
  });

  it("field boundaries count: moving text from one field to the next is another catalog", () => {
    const base: SearchDoc = { id: "a:b", name: "b", source: "core", toolset: "core", description: "xy", params: [{ name: "p", description: "" }] };
    expect(fingerprintDocs([base])).not.toBe(fingerprintDocs([{ ...base, description: "x", params: [{ name: "yp", description: "" }] }]));
    expect(fingerprintDocs([{ ...base, name: "ab" }])).not.toBe(fingerprintDocs([{ ...base, id: "a:ba", name: "b" }]));
    expect(fingerprintDocs([])).toMatch(/^[0-9a-f]{64}$/);
  });
});
