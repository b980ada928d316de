/**
 * The gateway doc's curl examples (docs/gateway.md), run as written (bash, the real curl) against the real CLI: the
 * scripted provider and the gateway, on free ports instead of 8787/8788.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT, startCli, type ServerProcess } from "./processes.js";

const MARKER = "<!-- curl-examples";

function docCurlLines(): string[] {
  const doc = readFileSync(path.join(ROOT, "docs", "gateway.md"), "utf8");
  const start = doc.indexOf(MARKER);
  if (start < 0) throw new Error("docs/gateway.md has no curl-examples block");
  const from = doc.indexOf("```sh\n", start) + "```sh\n".length;
  const block = doc.slice(from, doc.indexOf("\n```", from));
  return block.split("\n").filter((line) => line.startsWith("curl "));
}

let provider: ServerProcess;
let gateway: ServerProcess;
beforeAll(async () => {
  provider = await startCli(["mock-provider", "--port", "0"]);
  const dir = mkdtempSync(path.join(tmpdir(), "toolsearch-curl-"));
  // The doc's gateway runs on its defaults; only the provider's port differs here.
  const config = path.join(dir, "toolsearch.config.json5");
  writeFileSync(config, JSON.stringify({ provider: { baseURL: provider.url } }));
  gateway = await startCli(["serve", "--config", config, "--port", "0"]);
}, 120_000);
afterAll(async () => {
  await Promise.all([gateway?.stop(), provider?.stop()]);
});

describe("docs/gateway.md curl examples", () => {
  it("there is one per mode, and each answers a turn in that mode", { timeout: 120_000 }, () => {
    const lines = docCurlLines();
    expect(lines).toHaveLength(4);
    const port = new URL(gateway.url).port;
    const modes = lines.map((line) => {
      const answer = JSON.parse(
        execFileSync("bash", ["-c", line.replace("127.0.0.1:8788", `127.0.0.1:${port}`)], { encoding: "utf8", timeout: 60_000 }),
      ) as Record<string, unknown>;
      expect(answer, line).toMatchObject({ runId: expect.any(String), status: "answered" });
      return answer.mode;
    });
    expect(modes).toEqual(["direct", "code", "tools", "directory"]);
  });
});
