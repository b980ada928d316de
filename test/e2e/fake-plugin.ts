/** Writes a fake plugin module (600 generated tools with realistic descriptions) into a folder. */
import { writeFileSync, mkdirSync } from "node:fs";
import path from "node:path";
import { ROOT } from "./processes.js";

export const FAKE_PLUGIN_TOOLS = 600;
export const TARGET = "geo_get_weather_forecast";
export const REQUEST = "Get the weather forecast for Paris using the mapping service.";

export function writeFakePlugin(folder: string): string {
  mkdirSync(folder, { recursive: true });
  const generator = path.join(ROOT, "dist/src/demo/synthetic-catalog.js");
  writeFileSync(
    path.join(folder, "acme.mjs"),
    `import { syntheticTools } from ${JSON.stringify(generator)};\nexport default { id: "acme", tools: syntheticTools(${FAKE_PLUGIN_TOOLS}).map((t) => t.definition) };\n`,
  );
  return folder;
}
