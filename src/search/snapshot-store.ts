/**
 * Index snapshots on disk, by catalog fingerprint: a new process (a `serve --workers` worker,
 * a replica) with the same catalog loads the FTS5 database SQLite serialised instead of
 * re-analysing every tool.
 *
 * File: `<kind>-<fingerprint>.tsidx` =
 *   MAGIC (8 bytes) | header length (uint32 LE) | header JSON | payload (the serialised database)
 * The header carries the format version, the analyzer signature, the backend kind, the
 * fingerprint, the payload's byte count and its SHA-256. A snapshot is used only when all of
 * them agree; anything else (torn, truncated, another build's analyzer, a flipped bit) is
 * deleted and rebuilt, never trusted.
 *
 * Failures here are never fatal (the caller builds, and reports why in IndexBuildInfo.reason).
 * Bounded: a file over `maxBytes` is not read (its size is checked before a byte is read), the
 * header is capped at 4 KiB before it is parsed, and only the `keep` newest snapshots stay.
 * Written atomically (a temp file in the same folder, then rename), so a reader sees a whole
 * snapshot or none. A lock file (`open(wx)`) lets one process of several build while the others
 * wait for its snapshot, up to `lockWaitMs`.
 */
import { createHash, randomBytes } from "node:crypto";
import { mkdirSync } from "node:fs";
import { open, readdir, rename, stat, unlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { compileOptions, int } from "../config/ajv.js";
import { analyzerSignature } from "./analyzer-signature.js";

export const SNAPSHOT_FORMAT = 1;
const MAGIC = Buffer.from("TSIDX\u0000\u0001\n", "latin1");
const MAX_HEADER_BYTES = 4_096;
const SUFFIX = ".tsidx";
/** Temp files older than this are a crashed writer's: removed when the folder is pruned. */
const STALE_TEMP_MS = 10 * 60_000;

export interface IndexSnapshotOptions {
  /** The folder (created if missing); shared by every worker and replica of one catalog. */
  dir: string;
  /** Largest snapshot read or written, bytes (default 256 MiB). */
  maxBytes?: number;
  /** Snapshots kept, newest first (default 4). */
  keep?: number;
  /** How long a process waits for another's build before building itself, ms (default 60000; 0: never wait). */
  lockWaitMs?: number;
}

export interface ResolvedSnapshotOptions {
  dir: string;
  maxBytes: number;
  keep: number;
  lockWaitMs: number;
}

interface Header {
  format: number;
  signature: string;
  kind: string;
  fingerprint: string;
  docs: number;
  bytes: number;
  sha256: string;
}

export const indexSnapshotSchema = {
  type: "object",
  additionalProperties: false,
  required: ["dir"],
  properties: {
    dir: { type: "string", minLength: 1 },
    maxBytes: int(1_024, 4 * 1024 * 1024 * 1024, 256 * 1024 * 1024),
    keep: int(1, 1_000, 4),
    lockWaitMs: int(0, 3_600_000, 60_000),
  },
};
const check = compileOptions<ResolvedSnapshotOptions>(indexSnapshotSchema);

export function resolveSnapshotOptions(value: unknown, where = "indexCache"): ResolvedSnapshotOptions {
  return check(value, where);
}

export type SnapshotRead = { ok: true; payload: Uint8Array; docs: number } | { ok: false; reason: string };

const sha256 = (bytes: Uint8Array): string => createHash("sha256").update(bytes).digest("hex");
const safe = (s: string): string => s.replace(/[^A-Za-z0-9_.-]/g, "_").slice(0, 128);

export class SnapshotStore {
  readonly options: ResolvedSnapshotOptions;

  constructor(options: IndexSnapshotOptions) {
    this.options = resolveSnapshotOptions(options);
    mkdirSync(this.options.dir, { recursive: true });
  }

  file(kind: string, fingerprint: string): string {
    return path.join(this.options.dir, `${safe(kind)}-${safe(fingerprint)}${SUFFIX}`);
  }

  /** The payload when a valid snapshot exists; otherwise why not (a bad file is deleted). */
  async read(kind: string, fingerprint: string): Promise<SnapshotRead> {
    const file = this.file(kind, fingerprint);
    let size: number;
    try {
      size = (await stat(file)).size;
    } catch {
      return { ok: false, reason: "no snapshot" };
    }
    const limit = this.options.maxBytes + MAGIC.length + 4 + MAX_HEADER_BYTES;
    if (size > limit) return this.#reject(file, `the snapshot is ${size} bytes, over the ${limit}-byte cap`);
    let bytes: Buffer;
    const handle = await open(file, "r").catch(() => undefined);
    if (handle === undefined) return { ok: false, reason: "no snapshot" };
    try {
      // Read at most what stat said (capped above): a file that grew meanwhile is cut, and fails its checksum.
      bytes = Buffer.alloc(size);
      const { bytesRead } = await handle.read(bytes, 0, size, 0);
      bytes = bytes.subarray(0, bytesRead);
    } finally {
      await handle.close();
    }
    const parsed = parse(bytes);
    if (typeof parsed === "string") return this.#reject(file, parsed);
    const { header, payload } = parsed;
    const why =
      header.format !== SNAPSHOT_FORMAT ? `format ${header.format}, not ${SNAPSHOT_FORMAT}`
      : header.signature !== analyzerSignature() ? "built by another analyzer (another version of toolsearch)"
      : header.kind !== kind ? `backend "${header.kind}", not "${kind}"`
      : header.fingerprint !== fingerprint ? "another catalog's fingerprint"
      : header.bytes !== payload.byteLength ? `${payload.byteLength} payload bytes where the header says ${header.bytes}`
      : sha256(payload) !== header.sha256 ? "checksum mismatch"
      : undefined;
    if (why !== undefined) return this.#reject(file, why);
    return { ok: true, payload, docs: header.docs };
  }

  /** Writes atomically (temp file, rename), then prunes the folder to the `keep` newest. A payload over maxBytes is not written. */
  async write(kind: string, fingerprint: string, docs: number, payload: Uint8Array): Promise<{ ok: true } | { ok: false; reason: string }> {
    if (payload.byteLength > this.options.maxBytes) return { ok: false, reason: `the snapshot is ${payload.byteLength} bytes, over maxBytes ${this.options.maxBytes}` };
    const header: Header = { format: SNAPSHOT_FORMAT, signature: analyzerSignature(), kind, fingerprint, docs, bytes: payload.byteLength, sha256: sha256(payload) };
    const json = Buffer.from(JSON.stringify(header), "utf8");
    const length = Buffer.alloc(4);
    length.writeUInt32LE(json.length);
    const file = this.file(kind, fingerprint);
    const temp = `${file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
    try {
      await writeFile(temp, Buffer.concat([MAGIC, length, json, payload]), { flag: "wx" });
      await rename(temp, file);
    } catch (error) {
      await unlink(temp).catch(() => {});
      // Not fatal: the index is built and in use; the next process builds again.
      return { ok: false, reason: `could not write ${file}: ${error instanceof Error ? error.message : String(error)}` };
    }
    await this.prune();
    return { ok: true };
  }

  /** Deletes a snapshot (e.g. one SQLite refused to load). */
  async discard(kind: string, fingerprint: string): Promise<void> {
    await unlink(this.file(kind, fingerprint)).catch(() => {});
  }

  /**
   * Takes the build lock for this catalog: true when this process should build (it got the
   * lock, or waited `lockWaitMs` in vain); false when another process's snapshot appeared.
   * Call release() after writing. A lock older than lockWaitMs is a dead builder's: taken over.
   */
  async lock(kind: string, fingerprint: string): Promise<{ build: boolean; release: () => Promise<void> }> {
    const lockFile = `${this.file(kind, fingerprint)}.lock`;
    const release = async (): Promise<void> => {
      await unlink(lockFile).catch(() => {});
    };
    const noop = async (): Promise<void> => {};
    const deadline = Date.now() + this.options.lockWaitMs;
    for (;;) {
      try {
        const handle = await open(lockFile, "wx");
        await handle.write(String(process.pid));
        await handle.close();
        return { build: true, release };
      } catch {
        // Held by someone else.
      }
      const age = await stat(lockFile).then((s) => Date.now() - s.mtimeMs, () => 0);
      if (age > this.options.lockWaitMs) {
        await unlink(lockFile).catch(() => {});
        continue;
      }
      if (await stat(this.file(kind, fingerprint)).then(() => true, () => false)) return { build: false, release: noop };
      if (Date.now() >= deadline) return { build: true, release: noop };
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** Keeps the `keep` newest snapshots; removes stale temp files. */
  async prune(): Promise<void> {
    const names = await readdir(this.options.dir).catch((): string[] => []);
    const snapshots: Array<{ file: string; mtime: number }> = [];
    for (const name of names) {
      const file = path.join(this.options.dir, name);
      const info = await stat(file).catch(() => undefined);
      if (info === undefined) continue;
      if (name.endsWith(SUFFIX)) snapshots.push({ file, mtime: info.mtimeMs });
      else if (name.endsWith(".tmp") && Date.now() - info.mtimeMs > STALE_TEMP_MS) await unlink(file).catch(() => {});
    }
    snapshots.sort((a, b) => b.mtime - a.mtime);
    for (const { file } of snapshots.slice(this.options.keep)) await unlink(file).catch(() => {});
  }

  async #reject(file: string, reason: string): Promise<SnapshotRead> {
    await unlink(file).catch(() => {});
    return { ok: false, reason: `snapshot rejected: ${reason}` };
  }
}

function parse(bytes: Buffer): { header: Header; payload: Uint8Array } | string {
  if (bytes.length < MAGIC.length + 4 || !bytes.subarray(0, MAGIC.length).equals(MAGIC)) return "not a toolsearch index snapshot";
  const headerLength = bytes.readUInt32LE(MAGIC.length);
  if (headerLength > MAX_HEADER_BYTES) return `header of ${headerLength} bytes, over ${MAX_HEADER_BYTES}`;
  const start = MAGIC.length + 4;
  if (bytes.length < start + headerLength) return "truncated header";
  let value: unknown;
  try {
    value = JSON.parse(bytes.subarray(start, start + headerLength).toString("utf8"));
  } catch {
    return "unreadable header";
  }
  if (!isHeader(value)) return "malformed header";
  return { header: value, payload: new Uint8Array(bytes.buffer, bytes.byteOffset + start + headerLength, bytes.length - start - headerLength) };
}

function isHeader(value: unknown): value is Header {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v.format === "number" &&
    typeof v.signature === "string" &&
    typeof v.kind === "string" &&
    typeof v.fingerprint === "string" &&
    typeof v.docs === "number" &&
    typeof v.bytes === "number" &&
    typeof v.sha256 === "string"
  );
}
