/**
 * Progress lines on stderr for work that may take a while (MCP servers starting, an index
 * building): nothing when it is done within a second, else a line then, one every few seconds
 * while it lasts, and one when it ends. stdout stays the command's answer (`--json` included).
 */
import type { CommandIo } from "./usage.js";

export interface ProgressTimes {
  /** Quiet this long first (default 1000 ms). */
  afterMs?: number;
  /** Then a line this often (default 5000 ms). */
  everyMs?: number;
}

/** Waits for `work`, saying what it waits for (`describe()` is read at each line, so it can name what is still pending). */
export async function withProgress<T>(io: CommandIo, describe: () => string, work: Promise<T>, times: ProgressTimes = {}): Promise<T> {
  const started = performance.now();
  const seconds = () => `${((performance.now() - started) / 1000).toFixed(1)}s`;
  let spoke = false;
  let repeat: NodeJS.Timeout | undefined;
  const first = setTimeout(() => {
    spoke = true;
    io.err(`${describe()}…`);
    repeat = setInterval(() => io.err(`${describe()}… (${seconds()})`), times.everyMs ?? 5_000);
  }, times.afterMs ?? 1_000);
  try {
    const value = await work;
    if (spoke) io.err(`${describe()}: done in ${seconds()}`);
    return value;
  } finally {
    clearTimeout(first);
    clearInterval(repeat);
  }
}
