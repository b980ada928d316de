/**
 * What the engine trusts about the folder it keeps files in (index snapshots, the learned
 * journal), and nothing more:
 * - the folder itself only when no one else can write in it: owned by this user (or root) and
 *   not group- or world-writable, unless sticky (like /tmp: others may add files but not replace
 *   ours). A folder that fails is not used at all: the engine keeps what it has in memory.
 * - a file in it only when it is a regular file (not a link) owned by this user, so that in a
 *   sticky folder another user's planted file is never read as ours.
 * On Windows (no uids, no POSIX modes) the ownership and mode rules do not apply.
 */
import { constants, type Stats } from "node:fs";

const uid = (): number | undefined => (typeof process.getuid === "function" ? process.getuid() : undefined);

/** O_NOFOLLOW where the platform has it: a file of ours that is a symbolic link is never followed. */
export const READ_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0);

/** Why others could write this folder (so that nothing in it can be trusted), or undefined. */
export function folderDistrust(dir: string, info: Stats): string | undefined {
  if (!info.isDirectory()) return `${dir} is not a folder`;
  const me = uid();
  if (me === undefined) return undefined;
  if (info.uid !== me && info.uid !== 0) return `${dir} is owned by uid ${info.uid}, not this process's uid ${me}`;
  const sticky = (info.mode & 0o1000) !== 0;
  if ((info.mode & 0o022) !== 0 && !sticky) return `${dir} is writable by others (mode ${(info.mode & 0o7777).toString(8).padStart(4, "0")}, no sticky bit)`;
  return undefined;
}

/** Why a file in the folder is not ours to read, or undefined (checked on the open handle's stat). */
export function fileDistrust(info: Stats): string | undefined {
  if (!info.isFile()) return "not a regular file";
  const me = uid();
  if (me !== undefined && info.uid !== me) return `owned by uid ${info.uid}, not ${me}`;
  return undefined;
}

/** The errno code of a file-system error, if it has one. */
export const errnoCode = (error: unknown): string | undefined => (error as NodeJS.ErrnoException | undefined)?.code;
