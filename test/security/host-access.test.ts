/**
 * Bodies that try to touch the host: files, sockets, processes, workers, signals. The body has no
 * route to any of them (first suite). The second suite assumes the worst — a body that escaped
 * the vm context into the child's main realm — by running attack code there directly, under the
 * very launch plan the pool uses, to show the next layers (permission model, namespaces) hold.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import inspector from "node:inspector";
import { createServer, type Server } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCodePool, type SandboxPool } from "../../src/sandbox/index.js";
import { childArgs, detectPermissionFlag, launchPlans } from "../../src/sandbox/pool/launch.js";
import { resolvePoolOptions } from "../../src/sandbox/pool/options.js";
import { fakeBridge, isAlive, poolProcesses } from "../sandbox/helpers.js";
import { expectParentUnchanged, snapshotParent, type ParentSnapshot } from "./guard.js";

const RUN = { timeoutMs: 5000 };

let server: Server;
let port = 0;
let connections = 0;
let pool: SandboxPool;
let before: ParentSnapshot;

beforeAll(async () => {
  before = snapshotParent();
  server = createServer((socket) => {
    connections += 1;
    socket.destroy();
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  port = (server.address() as { port: number }).port;
  pool = await createCodePool({ prefork: 2 });
});

afterAll(async () => {
  await pool.close();
  server.close();
  expect(poolProcesses(pool)).toEqual([]);
  expectParentUnchanged(before);
});

/** Runs each attempt in the body and returns what each one produced (an error name or a value). */
function attempts(list: Record<string, string>): string {
  const entries = Object.entries(list).map(([name, expr]) => `[${JSON.stringify(name)}, async () => { ${expr} }]`);
  return `
    const out = {};
    for (const [name, attempt] of [${entries.join(",\n")}]) {
      try { out[name] = "SUCCEEDED: " + String(await attempt()); }
      catch (e) { out[name] = e && e.name ? e.name : String(e); }
    }
    return out;`;
}

function expectAllFailed(value: unknown): void {
  for (const [name, outcome] of Object.entries(value as Record<string, string>)) {
    expect(outcome, name).not.toMatch(/^SUCCEEDED/);
  }
}

describe("from the body", () => {
  it("cannot read files", async () => {
    const result = await pool.run(
      attempts({
        require: 'return require("fs").readFileSync("/etc/hostname", "utf8");',
        import: 'return (await import("node:fs")).readFileSync("/etc/hostname", "utf8");',
        processBinding: 'return process.binding("fs");',
        fetchFile: 'return await fetch("file:///etc/hostname");',
        bridgePath: 'return await openclaw.tools.call("../../../etc/hostname", {});',
      }),
      fakeBridge(),
      RUN,
    );
    expect(result.ok).toBe(true);
    expectAllFailed(result.ok && result.value);
  });

  it("cannot open a socket to a loopback server", async () => {
    const result = await pool.run(
      attempts({
        require: `return require("net").connect(${port}, "127.0.0.1");`,
        import: `return (await import("node:net")).connect(${port}, "127.0.0.1");`,
        fetch: `return await fetch("http://127.0.0.1:${port}/");`,
        webSocket: `return new WebSocket("ws://127.0.0.1:${port}/");`,
        xhr: `return new XMLHttpRequest();`,
        binding: `return process.binding("tcp_wrap");`,
      }),
      fakeBridge(),
      RUN,
    );
    expect(result.ok).toBe(true);
    expectAllFailed(result.ok && result.value);
    expect(connections).toBe(0);
  });

  it("cannot spawn a process or start a worker", async () => {
    const result = await pool.run(
      attempts({
        spawn: 'return require("child_process").spawnSync("id").stdout;',
        importSpawn: 'return (await import("node:child_process")).execSync("id");',
        worker: 'return new (require("worker_threads").Worker)("0", { eval: true });',
        webWorker: 'return new Worker("data:,0");',
        processDlopen: "return process.dlopen({}, '/tmp/x.node');",
      }),
      fakeBridge(),
      RUN,
    );
    expect(result.ok).toBe(true);
    expectAllFailed(result.ok && result.value);
  });

  it("cannot signal the parent", async () => {
    const result = await pool.run(
      attempts({
        debugProcess: `return process._debugProcess(${process.pid});`,
        kill: `return process.kill(${process.pid}, "SIGTERM");`,
        killViaConstructor: `return this.constructor.constructor("return process")().kill(${process.pid});`,
      }),
      fakeBridge(),
      RUN,
    );
    expect(result.ok).toBe(true);
    expectAllFailed(result.ok && result.value);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(inspector.url()).toBeUndefined();
  });
});

describe("after a hypothetical escape into the child's main realm", () => {
  // What the child's main realm may do, under exactly the flags and wrappers the pool probed.
  const escaped = (parentPid: number, serverPort: number) => `"use strict";
    const out = {};
    const attempt = (name, fn) => { try { out[name] = "SUCCEEDED: " + String(fn()); } catch (e) { out[name] = e.code || e.message; } };
    attempt("readFile", () => require("fs").readFileSync("/etc/hostname", "utf8"));
    attempt("writeFile", () => require("fs").writeFileSync("/tmp/toolsearch-escape", "x"));
    attempt("spawn", () => require("child_process").spawnSync("id").status);
    attempt("worker", () => new (require("worker_threads").Worker)("0", { eval: true }));
    attempt("signalParent", () => process.kill(${parentPid}, 0));
    attempt("debugParent", () => process._debugProcess(${parentPid}));
    const finish = () => { process.stdout.write(JSON.stringify(out)); process.exit(0); };
    try {
      const socket = require("net").connect(${serverPort}, "127.0.0.1");
      socket.on("connect", () => { out.connect = "SUCCEEDED"; finish(); });
      socket.on("error", (e) => { out.connect = e.code; finish(); });
    } catch (e) { out.connect = e.code; finish(); }`;

  // One escaped child, run under the plan the pool probed; each layer is then checked on its own.
  let out: Record<string, string>;
  let exit: { code: number; pid: number | undefined };
  beforeAll(async () => {
    const report = pool.report();
    const plans = launchPlans(resolvePoolOptions({}), detectPermissionFlag()!);
    const plan = plans.find((p) => p.unshare === (report.layers.pidNamespace || report.layers.networkNamespace)) ?? plans.at(-1)!;
    const child = spawn(plan.command, childArgs(plan, escaped(process.pid, port), []), { env: {}, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk));
    const [code] = (await once(child, "close")) as [number];
    exit = { code, pid: child.pid };
    out = code === 0 ? (JSON.parse(stdout) as Record<string, string>) : {};
  });

  it("the permission model still holds: no file, process or thread", async () => {
    expect(exit.code).toBe(0);
    expect(out.readFile).toBe("ERR_ACCESS_DENIED");
    expect(out.writeFile).toBe("ERR_ACCESS_DENIED");
    expect(out.spawn).toBe("ERR_ACCESS_DENIED");
    expect(out.worker).toBe("ERR_ACCESS_DENIED");
    // Whatever got through, the parent's inspector stays closed (inspector guard).
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(inspector.url()).toBeUndefined();
    expect(exit.pid !== undefined && isAlive(exit.pid)).toBe(false);
  });

  it("the PID namespace hides the parent", (ctx) => {
    if (!pool.report().layers.pidNamespace) ctx.skip("no PID namespace on this host (the pool reports pidNamespace false)");
    // The parent's pid does not exist inside the child's PID namespace.
    expect(out.signalParent).toBe("ESRCH");
    expect(out.debugParent).toMatch(/ESRCH|No such process/);
  });

  it("the network namespace or the permission model's network rule keeps it off the network", (ctx) => {
    const { networkNamespace, permissionNet } = pool.report().layers;
    if (!networkNamespace && !permissionNet) ctx.skip("neither a network namespace nor the permission model's network rule on this host");
    expect(out.connect).not.toBe("SUCCEEDED");
    expect(connections).toBe(0);
  });
});
