/**
 * Finds out, by experiment, which isolation layers a child actually gets on this host. The pool's
 * first child is started in probe mode under the strongest launch plan; if it does not come up,
 * the next plan (one wrapper fewer) is tried. The probe child reports its PID (1 inside a PID
 * namespace), its network interfaces, whether the permission model and the code-generation ban
 * are in force in its main realm, and what happened when it tried to connect to a loopback server
 * the parent opened for the purpose. The child then joins the pool like any other.
 */
import { createServer, type Server } from "node:net";
import type { ProbeFacts } from "../bridge/protocol.js";
import type { SandboxReport } from "../types.js";
import type { LaunchPlan } from "./launch.js";
import type { ResolvedPoolOptions } from "./options.js";
import { SandboxChild } from "./sandbox-child.js";
import type { Spawner } from "./spawner.js";

export type Layers = SandboxReport["layers"];

export interface ProbeSuccess {
  ok: true;
  plan: LaunchPlan;
  child: SandboxChild;
  layers: Layers;
  /** Why stronger plans were skipped, if any were. */
  notes: string[];
}

export interface ProbeFailure {
  ok: false;
  reason: string;
}

interface LoopbackProbe {
  port: number;
  connections(): number;
  close(): Promise<void>;
}

async function openLoopbackProbe(): Promise<LoopbackProbe> {
  let seen = 0;
  const server: Server = createServer((socket) => {
    seen += 1;
    socket.destroy();
  });
  const port = await new Promise<number>((resolve) => {
    server.once("error", () => resolve(0));
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      resolve(typeof address === "object" && address ? address.port : 0);
    });
  });
  return {
    port,
    connections: () => seen,
    close: () => new Promise((resolve) => (port === 0 ? resolve() : server.close(() => resolve()))),
  };
}

function planName(plan: LaunchPlan): string {
  const wrappers = [plan.setpriv ? "setpriv" : "", plan.prlimit ? "prlimit" : "", plan.unshare ? "unshare" : ""].filter(Boolean);
  return wrappers.length > 0 ? wrappers.join("+") : "plain node";
}

function layersFrom(plan: LaunchPlan, facts: ProbeFacts, connections: number, inspectorGuard: boolean): Layers {
  const netClosed = facts.net !== "connected" && connections === 0;
  return {
    permissionModel: facts.permission,
    networkNamespace: plan.unshare && netClosed && facts.interfaces.every((name) => name === "lo"),
    pidNamespace: plan.unshare && facts.pid === 1,
    permissionNet: facts.net === "denied" && connections === 0,
    noCodeGenFromStrings: facts.codegenBlocked,
    vmContext: true,
    parentInspectorGuard: inspectorGuard,
    memoryLimit: plan.prlimit,
    orphanKill: plan.setpriv || plan.prlimit,
  };
}

export async function probeFirstChild(
  plans: LaunchPlan[],
  base: { source: string; cwd: string; options: ResolvedPoolOptions; spawner?: Spawner },
  inspectorGuard: boolean,
): Promise<ProbeSuccess | ProbeFailure> {
  const loopback = await openLoopbackProbe();
  const notes: string[] = [];
  try {
    for (const plan of plans) {
      let child: SandboxChild;
      try {
        child = new SandboxChild({ ...base, plan, extraArgs: ["probe", String(loopback.port)] });
      } catch (error) {
        notes.push(`${planName(plan)}: ${(error as Error).message}`);
        continue;
      }
      let facts: ProbeFacts | undefined;
      try {
        facts = await child.ready;
      } catch (error) {
        notes.push(`${planName(plan)}: ${(error as Error).message}`);
        child.kill();
        await child.closed;
        continue;
      }
      if (!facts) {
        child.kill();
        return { ok: false, reason: "the probe child did not report its facts" };
      }
      const layers = layersFrom(plan, facts, loopback.connections(), inspectorGuard);
      if (!layers.permissionModel || !layers.noCodeGenFromStrings) {
        child.kill();
        await child.closed;
        const missing = [!layers.permissionModel && "the permission model", !layers.noCodeGenFromStrings && "the code-generation ban"].filter(Boolean);
        return { ok: false, reason: `${missing.join(" and ")} did not take effect in the child (${planName(plan)})` };
      }
      return { ok: true, plan, child, layers, notes };
    }
    return { ok: false, reason: `no sandbox child could start: ${notes.join("; ")}` };
  } finally {
    await loopback.close();
  }
}
