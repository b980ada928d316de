/**
 * Progress lines on stderr (stdout stays for the summary), each stamped with the time since
 * the run started, so a long run shows where it is and a CI log shows where time went.
 */

export interface Progress {
  (line: string): void;
  /** A child logger whose lines are prefixed with `[scope]`. */
  scope(name: string): Progress;
}

export function progress(options: { quiet?: boolean; started?: number; prefix?: string } = {}): Progress {
  const started = options.started ?? performance.now();
  const prefix = options.prefix ? `[${options.prefix}] ` : "";
  const log = ((line: string) => {
    if (options.quiet) return;
    const s = ((performance.now() - started) / 1000).toFixed(1).padStart(6);
    process.stderr.write(`${s}s ${prefix}${line}\n`);
  }) as Progress;
  log.scope = (name: string) => progress({ ...options, started, prefix: options.prefix ? `${options.prefix}/${name}` : name });
  return log;
}

/** A logger that drops everything (tests). */
export const silent: Progress = Object.assign(() => {}, { scope: () => silent });
