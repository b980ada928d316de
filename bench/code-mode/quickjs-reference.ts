/**
 * The in-process reference of the code-mode benches (issue 21): quickjs-emscripten, the WASM
 * sandbox a user might pick instead of a child per body. A devDependency of the bench only;
 * src/ never imports it.
 * Runs the reference against the sandbox's own bridge interface on purpose: imports src/sandbox/types.ts directly.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { BridgeHandler } from "../../src/sandbox/types.js";
import { percentile } from "../harness/stats.js";
import { concurrently } from "./measure.js";

export interface InProcessReference {
  name: string;
  version: string;
  /** One body after another, a fresh context each. */
  warmP50Ms: number;
  /** Bodies per second, two at a time (one event loop: they take turns). */
  perSecond: number;
  /** This process's CPU per body (it is all in this process). */
  cpuMsPerBody: number;
  n: number;
}

/**
 * The in-process sandbox a user might pick instead: quickjs-emscripten (a devDependency of the
 * bench, never imported by src/), a fresh context per body, the same body and bridge. Undefined
 * when it is not installed (npm ci installs it).
 */
export async function quickjsReference(body: string, bridge: BridgeHandler, expected: unknown, samples: number): Promise<InProcessReference | undefined> {
  let mod: typeof import("quickjs-emscripten");
  try {
    mod = await import("quickjs-emscripten");
  } catch {
    return undefined;
  }
  const QuickJS = await mod.getQuickJS();
  const version = (JSON.parse(readFileSync(join(process.cwd(), "node_modules", "quickjs-emscripten", "package.json"), "utf8")) as { version: string }).version;
  const call = { signal: new AbortController().signal };
  const PRELUDE = `const openclaw = { tools: {
    search: async (...a) => JSON.parse(await __host("search", JSON.stringify(a))),
    describe: async (...a) => JSON.parse(await __host("describe", JSON.stringify(a))),
    call: async (...a) => JSON.parse(await __host("call", JSON.stringify(a))),
  } };`;
  const runOne = async (): Promise<unknown> => {
    const vm = QuickJS.newContext();
    try {
      const host = vm.newFunction("__host", (opHandle, argsHandle) => {
        const op = vm.getString(opHandle);
        const args = JSON.parse(vm.getString(argsHandle)) as unknown[];
        const deferred = vm.newPromise();
        const answer =
          op === "search"
            ? bridge.search(String(args[0]), undefined, call)
            : op === "describe"
              ? bridge.describe(String(args[0]), call)
              : bridge.call(String(args[0]), args[1], call);
        void Promise.resolve(answer).then((value) => {
          const text = vm.newString(JSON.stringify(value));
          deferred.resolve(text);
          text.dispose();
          vm.runtime.executePendingJobs();
        });
        return deferred.handle;
      });
      vm.setProp(vm.global, "__host", host);
      host.dispose();
      const promise = vm.unwrapResult(vm.evalCode(`${PRELUDE}\n(async () => {${body}\n})()`));
      const settled = vm.resolvePromise(promise);
      promise.dispose();
      vm.runtime.executePendingJobs();
      const result = vm.unwrapResult(await settled);
      const value: unknown = vm.dump(result);
      result.dispose();
      return value;
    } finally {
      vm.dispose();
    }
  };
  const first = await runOne();
  if (JSON.stringify(first) !== JSON.stringify(expected)) throw new Error(`quickjs reference returned ${JSON.stringify(first)}`);
  for (let i = 0; i < 20; i++) await runOne();
  const ms: number[] = [];
  for (let i = 0; i < samples; i++) {
    const t0 = performance.now();
    await runOne();
    ms.push(performance.now() - t0);
  }
  const total = samples * 4;
  const cpu0 = process.cpuUsage();
  const wall = await concurrently(2, total, runOne);
  const cpu = process.cpuUsage(cpu0);
  return {
    name: "quickjs-emscripten",
    version,
    warmP50Ms: percentile(ms, 50),
    perSecond: (total * 1000) / wall,
    cpuMsPerBody: (cpu.user + cpu.system) / 1000 / total,
    n: samples,
  };
}
