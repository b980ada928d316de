/**
 * The suite in five projects, all run by `npm test` (`vitest run`); one alone with
 * `npx vitest run --project <name>`:
 * - unit: in-process tests, seconds in all: what to run while working;
 * - integration: real child processes, MCP servers, HTTP servers, sandbox children, the shared data sets;
 * - e2e: the built CLI (`dist/`) as a user runs it;
 * - packaging: `npm pack`, installs into fresh projects, the MCP Inspector;
 * - browser: the console in a real browser.
 * A test that takes more than 5 s says why in a comment (the reporter marks it slow).
 * docs/architecture.md#tests says more.
 */
import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

const PACKAGING = ["test/packaging/**/*.test.ts", "test/inspector/**/*.test.ts"];
const BROWSER = ["test/browser/**/*.test.ts"];
const E2E = ["test/e2e/**/*.test.ts", "test/cli/**/*.test.ts"];
const INTEGRATION = [
  "test/{bench,faults,gateway,mcp,mcpface,sandbox,security}/**/*.test.ts",
  // Elsewhere in the tree, but a real process, a real server or the shared data sets:
  "test/search/relevance.test.ts",
  "test/search/storage/snapshot-store.test.ts",
  "test/telemetry/{log-escaping,session-log}.test.ts",
  "test/metrics/**/*.test.ts",
  "test/engine/code-mode.test.ts",
];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    // Most files wait on a child process, a socket or a timer, not on a core: more files than
    // cores run at once (vitest's default is one fewer than the cores, one on a 2-core box).
    maxWorkers: Math.max(3, availableParallelism()),
    slowTestThreshold: 5_000,
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: ["test/**/*.test.ts"],
          exclude: [...INTEGRATION, ...E2E, ...PACKAGING, ...BROWSER],
          // The files of one worker share a process: each file's imports are not loaded again
          // (most of a unit file's time). So a unit test mocks no module and leaves no global state.
          isolate: false,
        },
      },
      { extends: true, test: { name: "integration", include: INTEGRATION } },
      { extends: true, test: { name: "e2e", include: E2E } },
      { extends: true, test: { name: "packaging", include: PACKAGING } },
      { extends: true, test: { name: "browser", include: BROWSER } },
    ],
  },
});
