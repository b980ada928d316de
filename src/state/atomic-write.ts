/**
 * The one way the engine replaces a file it keeps (a snapshot, the learned journal after
 * compaction, the config file): a temp file in the same folder, created exclusively (mode 0600:
 * a file others may write could be changed in place), flushed to disk, then renamed over the
 * old one, so a reader sees the whole old file or the whole new one, also after a crash.
 */
import { randomBytes } from "node:crypto";
import { closeSync, fsyncSync, openSync, renameSync, unlinkSync, writeSync } from "node:fs";
import { open, rename, unlink } from "node:fs/promises";

/** A temp file's name beside `file`; `.tmp` names are pruned by their owners when stale. */
function tempNameFor(file: string): string {
  return `${file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
}

/** Writes `chunks` to `file` atomically; the temp file is removed on failure, and the error thrown. */
export async function writeFileAtomic(file: string, chunks: Uint8Array | readonly Uint8Array[], mode = 0o600): Promise<void> {
  const temp = tempNameFor(file);
  try {
    const handle = await open(temp, "wx", mode);
    try {
      // writeFile on a handle writes all of a chunk from the current position: the chunks follow each other.
      for (const chunk of chunks instanceof Uint8Array ? [chunks] : chunks) await handle.writeFile(chunk);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, file);
  } catch (error) {
    await unlink(temp).catch(() => {});
    throw error;
  }
}

/** The same for the command line (`config set`), where nothing else waits on the loop. */
export function writeFileAtomicSync(file: string, data: string | Uint8Array, mode = 0o600): void {
  const temp = tempNameFor(file);
  try {
    const fd = openSync(temp, "wx", mode);
    try {
      const bytes = typeof data === "string" ? Buffer.from(data, "utf8") : data;
      for (let done = 0; done < bytes.byteLength;) done += writeSync(fd, bytes, done);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, file);
  } catch (error) {
    try {
      unlinkSync(temp);
    } catch {
      // Never created, or gone already.
    }
    throw error;
  }
}
