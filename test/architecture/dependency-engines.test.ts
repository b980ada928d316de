/**
 * `npm ci` on any Node the package says it runs on installs without an EBADENGINE warning: every
 * package in the lockfile accepts the lowest Node of package.json's `engines` range, and the Node
 * running this test. (npm warns when the running Node is outside a package's `engines.node`.)
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import semver from "semver";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "../..");

interface LockPackage {
  engines?: { node?: string };
}

const manifest = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as { engines: { node: string } };
const lock = JSON.parse(readFileSync(path.join(ROOT, "package-lock.json"), "utf8")) as { packages: Record<string, LockPackage> };

describe("dependencies' engines", () => {
  it("each accepts the lowest Node package.json allows and the Node running the tests", () => {
    const lowest = semver.minVersion(manifest.engines.node)!.version;
    expect(semver.satisfies(process.versions.node, manifest.engines.node)).toBe(true);
    const refusing = Object.entries(lock.packages)
      .filter(([, entry]) => entry.engines?.node !== undefined)
      .flatMap(([name, entry]) =>
        [lowest, process.versions.node]
          .filter((version) => !semver.satisfies(version, entry.engines!.node!))
          .map((version) => `${name.replace(/^node_modules\//, "")} wants node ${entry.engines!.node}, not ${version}`),
      );
    expect(refusing).toEqual([]);
  });
});
