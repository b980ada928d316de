/**
 * How a sandbox child is started: which wrappers (prlimit, unshare) and which Node flags. Nothing
 * here is guessed from the platform name alone: the permission flag is read from the running
 * Node's own list of flags, the wrappers are looked up on disk, and the pool's first child proves
 * the whole command line works (pool/probe.ts), falling back one wrapper at a time.
 *
 * Layout: `setpriv --pdeathsig KILL  prlimit --data=N --cpu=S  unshare --user --map-root-user
 *          --net --pid --fork --kill-child  node <flags> --eval SRC [-- probe PORT]`
 * setpriv and prlimit exec in place and unshare forks node as PID 1 of the new PID namespace, so
 * the parent's direct child is the unshare process and node is its only child. --kill-child makes
 * the kernel SIGKILL node if unshare dies first; the pool kills node first (pool/sandbox-child.ts).
 *
 * The parent owns time only while it lives: a parent killed with SIGKILL (an OOM kill, a
 * supervisor's) cannot kill a body that loops and never reads its stdin, which then runs on
 * forever. So setpriv's parent-death signal SIGKILLs the wrapper (and with it, node) when the
 * parent dies, and prlimit's CPU cap (RLIMIT_CPU) bounds a body's CPU time on its own, whatever
 * happens to the parent: the longest body (60 s) twice over, plus the child's start.
 */
import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";
import type { ResolvedPoolOptions } from "./options.js";

export interface LaunchPlan {
  /** Executable the parent spawns. */
  command: string;
  /** Arguments before the node flags (wrappers and their options, ending with node's path). */
  prefix: string[];
  nodeFlags: string[];
  unshare: boolean;
  prlimit: boolean;
  /** setpriv's parent-death SIGKILL is in the chain. */
  setpriv: boolean;
}

/** CPU seconds a child may use in all (RLIMIT_CPU): twice the longest codeTimeoutMs (60 s), plus its start. */
const CHILD_CPU_LIMIT_SECONDS = 130;

/** `--permission` (Node ≥ 22.13/23.5) or `--experimental-permission` (Node 20–22), as the running Node lists them. */
export function detectPermissionFlag(): string | undefined {
  const flags = process.allowedNodeEnvironmentFlags;
  if (flags.has("--permission")) return "--permission";
  if (flags.has("--experimental-permission")) return "--experimental-permission";
  return undefined;
}

function findExecutable(name: string): string | undefined {
  const dirs = [...(process.env.PATH ?? "").split(delimiter), "/usr/bin", "/bin", "/usr/sbin", "/sbin"];
  for (const dir of dirs) {
    if (!dir) continue;
    const file = join(dir, name);
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // not here
    }
  }
  return undefined;
}

/**
 * Candidate plans, strongest first. The probe tries them in order and keeps the first whose child
 * comes up; each later one drops a wrapper the host may refuse (unprivileged user namespaces are
 * often disabled; prlimit may be missing).
 */
export function launchPlans(options: ResolvedPoolOptions, permissionFlag: string): LaunchPlan[] {
  const nodeFlags = [
    permissionFlag,
    "--no-warnings",
    "--disallow-code-generation-from-strings",
    `--max-old-space-size=${options.maxOldSpaceSizeMb}`,
    // Needed on Node 20–22 for vm.Script's importModuleDynamically, which answers import() from
    // the body with an error made in the body's own realm.
    "--experimental-vm-modules",
  ];
  const linux = process.platform === "linux";
  const unshare = linux && options.namespaces ? findExecutable("unshare") : undefined;
  const prlimit = linux ? findExecutable("prlimit") : undefined;
  const unshareArgs = (path: string) => [path, "--user", "--map-root-user", "--net", "--pid", "--fork", "--kill-child"];
  const setpriv = linux ? findExecutable("setpriv") : undefined;
  const prlimitArgs = (path: string) => [path, `--data=${options.maxMemoryMb * 1024 * 1024}`, `--cpu=${CHILD_CPU_LIMIT_SECONDS}`];

  const plans: LaunchPlan[] = [];
  const add = (useSetpriv: boolean, useUnshare: boolean, usePrlimit: boolean) => {
    const prefix = [
      ...(useSetpriv ? [setpriv!, "--pdeathsig", "KILL"] : []),
      ...(usePrlimit ? prlimitArgs(prlimit!) : []),
      ...(useUnshare ? unshareArgs(unshare!) : []),
    ];
    const command = prefix.length > 0 ? prefix[0]! : process.execPath;
    plans.push({
      command,
      prefix: prefix.length > 0 ? [...prefix.slice(1), process.execPath] : [],
      nodeFlags,
      unshare: useUnshare,
      prlimit: usePrlimit,
      setpriv: useSetpriv,
    });
  };
  // setpriv first where it exists; the same plans without it follow, for a host that refuses it.
  for (const useSetpriv of setpriv ? [true, false] : [false]) {
    if (unshare && prlimit) add(useSetpriv, true, true);
    if (unshare) add(useSetpriv, true, false);
    if (prlimit) add(useSetpriv, false, true);
    add(useSetpriv, false, false);
  }
  return plans;
}

/** Full argv (after `command`) for one child. */
export function childArgs(plan: LaunchPlan, source: string, extra: readonly string[]): string[] {
  return [...plan.prefix, ...plan.nodeFlags, "--eval", source, ...(extra.length > 0 ? ["--", ...extra] : [])];
}
