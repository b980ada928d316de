/**
 * Keeps the parent's inspector closed against SIGUSR1.
 *
 * On POSIX, Node starts its inspector when it receives SIGUSR1 — which is all
 * `process._debugProcess(pid)` does — and any process of the same uid may send it. An open
 * inspector gives whoever connects the parent's full authority. Installing a SIGUSR1 listener
 * makes libuv take over the signal from Node's built-in "start the inspector" handler; verified
 * on Node 20 by experiment (test/security/parent-signals.test.ts sends SIGUSR1 to the test process
 * and checks `inspector.url()` stays undefined).
 *
 * The guard is process-wide and permanent: once every SIGUSR1 listener is removed, libuv resets
 * the signal to its default action, which terminates the process, so removing it on pool close
 * would turn the next SIGUSR1 into a crash. Hosts that want `kill -USR1` debugging pass
 * `guardParentInspector: false`.
 */
let installed = false;

function ignoreSigusr1(): void {
  // Deliberately nothing: the point is to own the signal.
}

/** Installs the guard once per process; returns whether it is in force. */
export function guardParentInspector(): boolean {
  if (process.platform === "win32") return false;
  if (!installed) {
    process.on("SIGUSR1", ignoreSigusr1);
    installed = true;
  }
  return true;
}
