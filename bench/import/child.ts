/**
 * One library start as a user's process makes it: `import("toolsearch")` (the package's own
 * entry, resolved through its `exports`), createToolSearch over one core tool, one search, then
 * exit. Prints one JSON line: each step's milliseconds, and the process's peak RSS. Run by
 * bench/import/import-bench.ts beside `node -e 0`.
 */
const started = performance.now();
const { createToolSearch, coreTools } = await import("toolsearch");
const imported = performance.now();
const engine = await createToolSearch({
  toolSearch: { mode: "tools" },
  sources: [
    coreTools([
      {
        name: "get_weather",
        description: "Weather forecast for a city.",
        inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
        execute: () => "sunny",
      },
    ]),
  ],
});
const created = performance.now();
const run = await engine.prepareRun({ sessionId: "bench" });
const hits = await run.search("weather forecast");
const searched = performance.now();
if (hits[0]?.id !== "core:get_weather") throw new Error(`bench/import: the search found ${JSON.stringify(hits.map((h) => h.id))}`);
await run.end();
await engine.close();
console.log(
  JSON.stringify({
    importMs: imported - started,
    createMs: created - imported,
    searchMs: searched - created,
    totalMs: searched - started,
    // resourceUsage().maxRSS is in KiB.
    maxRssMiB: process.resourceUsage().maxRSS / 1024,
  }),
);
