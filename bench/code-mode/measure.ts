/** Measuring helpers the code-mode benches share: reaped children's CPU, and tasks run N at a time. */
import { readFileSync } from "node:fs";

/** Clock ticks per second of /proc/PID/stat's times (USER_HZ, 100 on Linux). */
export const CLK_TCK = 100;

/** CPU ms of every reaped child of this process so far (cutime + cstime). */
export function reapedChildrenCpuMs(): number {
  const fields = readFileSync("/proc/self/stat", "utf8").split(") ")[1]!.split(" ");
  // Fields after "comm)": state is index 0, so cutime (field 16) and cstime (17) are 13 and 14.
  return ((Number(fields[13]) + Number(fields[14])) / CLK_TCK) * 1000;
}

/** Runs `total` tasks, `concurrency` at a time; resolves with the wall ms they took. */
export async function concurrently(concurrency: number, total: number, task: () => Promise<unknown>): Promise<number> {
  let started = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (started < total) {
        started += 1;
        await task();
      }
    }),
  );
  return performance.now() - t0;
}
