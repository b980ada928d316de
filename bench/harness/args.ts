/** The value given after a flag (`--out DIR`): argv[at], which must exist and not be another flag. */
export function flagValue(argv: readonly string[], at: number, flag: string): string {
  const value = argv[at];
  if (value === undefined || value.startsWith("--")) throw new Error(`${flag} needs a value`);
  return value;
}

/** A positive integer after `name` in process.argv (`--n 40`), or `fallback` when absent or not one. */
export function positiveIntArg(name: string, fallback: number): number {
  const i = process.argv.indexOf(name);
  const n = i >= 0 ? Number(process.argv[i + 1]) : fallback;
  return Number.isInteger(n) && n > 0 ? n : fallback;
}
