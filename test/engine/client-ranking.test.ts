/**
 * One ranking for client tools: a run's client tools are scored with the catalog's corpus
 * statistics, so a client tool that matches better outranks catalog tools, and preparing a
 * run with client tools never re-indexes the catalog.
 */
import { afterEach, describe, expect, it } from "vitest";
import { sealToolDefinitions } from "../../bench/lib/seal-tool-definitions.js";
import { sharedDataDir } from "../../bench/lib/shared-data.js";
import { createToolSearch, pluginTools, type ToolSearchEngine } from "../../src/index.js";
import { bm25fBackend } from "../../src/search/backends/bm25f-backend.js";
import type { SearchBackendFactory } from "../../src/search/types.js";
import { githubTools } from "../fixtures/tools.js";

let engine: ToolSearchEngine | undefined;
afterEach(async () => {
  await engine?.close();
  engine = undefined;
});

const dataDir = sharedDataDir();
const clientTool = (name: string, description: string) => ({ name, description, inputSchema: { type: "object" }, execute: () => name });
const CAMERA = clientTool("open_camera_app", "Open the device camera app");
const FLASHLIGHT = clientTool("toggle_flashlight", "Turn the device flashlight on or off");

/** bm25f, counting how many indexes get built. */
function countingBm25f(): { factory: SearchBackendFactory; builds: () => number } {
  let builds = 0;
  const factory: SearchBackendFactory = {
    kind: "bm25f",
    create: () => {
      builds++;
      return bm25fBackend.create();
    },
  };
  return { factory, builds: () => builds };
}

describe.skipIf(dataDir === undefined)("client tools over 4,076 Seal-Tools tools", () => {
  it("rank first when they match best, without re-indexing the catalog", async () => {
    const { factory, builds } = countingBm25f();
    engine = await createToolSearch({ toolSearch: { mode: "tools" }, backend: factory, sources: [pluginTools("seal", sealToolDefinitions(dataDir!))] });
    const run = await engine.prepareRun({ sessionId: "s", clientTools: [CAMERA, FLASHLIGHT] });
    const camera = await run.search("open the camera");
    expect(camera[0]?.id).toBe("client:open_camera_app");
    expect(camera.length).toBeGreaterThan(1); // catalog hits follow
    expect((await run.search("turn on the flashlight"))[0]?.id).toBe("client:toggle_flashlight");

    const other = await engine.prepareRun({ sessionId: "t", clientTools: [FLASHLIGHT] });
    expect((await other.search("open the camera"))[0]?.id).not.toBe("client:open_camera_app");
    expect(builds()).toBe(1);
  });
});

describe("client tools beside a small catalog", () => {
  it("do not outrank a catalog tool that matches better, and scores stay within (0, 1]", async () => {
    engine = await createToolSearch({ toolSearch: { mode: "tools" }, sources: [pluginTools("github", githubTools({ ran: [] }))] });
    const run = await engine.prepareRun({ sessionId: "s", clientTools: [CAMERA] });
    const hits = await run.search("create github issue");
    expect(hits[0]?.id).toBe("plugin:github:create_issue");
    expect(hits.map((h) => h.id)).not.toContain("client:open_camera_app");
    const camera = await run.search("camera");
    expect(camera[0]).toMatchObject({ id: "client:open_camera_app", score: 1 });
    for (const h of hits) expect(h.score > 0 && h.score <= 1).toBe(true);
  });
});

describe("a request of several steps", () => {
  it("gets a client tool for one step and catalog tools for the others, scores within (0, 1]", async () => {
    engine = await createToolSearch({ toolSearch: { mode: "tools" }, sources: [pluginTools("github", githubTools({ ran: [] }))] });
    const run = await engine.prepareRun({ sessionId: "s", clientTools: [CAMERA] });
    const hits = await run.search("Create a github issue about the crash. Then open the camera app, and also list the open pull requests", { limit: 3 });
    const ids = hits.map((h) => h.id);
    expect(ids).toEqual(expect.arrayContaining(["plugin:github:create_issue", "client:open_camera_app", "plugin:github:list_pull_requests"]));
    for (const h of hits) expect(h.score > 0 && h.score <= 1).toBe(true);
  });
});
