/** The `load` hook of load-recorder.ts, on the module loader's thread: appends each URL it loads to the record file. */
import { appendFileSync } from "node:fs";

let file: string | undefined;

export function initialize(data: { file: string }): void {
  file = data.file;
}

type NextLoad = (url: string, context: object) => Promise<unknown>;

export async function load(url: string, context: object, next: NextLoad): Promise<unknown> {
  if (file !== undefined) appendFileSync(file, `${url}\n`);
  return next(url, context);
}
