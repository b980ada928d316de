/**
 * Index snapshots on disk, by catalog fingerprint: a new process (a `serve --workers` worker,
 * a replica) with the same catalog loads the index its backend serialised (the default
 * backend's BM25F postings, in a SQLite database) instead of re-analysing every tool.
 *
 * File: `<kind>-<fingerprint>.tsidx` =
 *   MAGIC (8 bytes) | header length (uint32 LE) | header JSON | payload (the serialised database) [| MAC (32 bytes)]
 * The header carries the format version, the analyzer signature, the backend kind, the
 * fingerprint, the doc count and a digest of the docs the index was built from, the payload's
 * byte count and its SHA-256. A snapshot is used only when all of them agree; anything else
 * (torn, truncated, another build's analyzer, a flipped bit) is deleted and rebuilt.
 *
 * Nothing here proves where a snapshot came from: anyone who can write the folder can write a
 * valid header. So the folder is used only when no one else can write it (cache-folder.ts), the
 * backend checks the payload against the catalog before using it (SnapshotExpectation in
 * types.ts), and with a `key` every snapshot carries an HMAC-SHA256 over all its bytes: one
 * without a valid MAC is deleted and rebuilt, so processes sharing a folder and a key trust
 * only each other's snapshots.
 *
 * Failures here are never fatal (the caller builds, and reports why in IndexBuildInfo.reason
 * and as a warning). Bounded: a file over `maxBytes` is not read (its size is checked before a
 * byte is read), the header is capped at 4 KiB before it is parsed, and only the `keep` newest
 * snapshots stay. Written atomically (a temp file in the same folder, then rename), so a reader
 * sees a whole snapshot or none. A lock file names its holder, so that one process of several
 * builds while the others wait for its snapshot, up to `lockWaitMs`, and a lock whose holder is
 * gone is broken at once.
 */
import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { mkdirSync } from "node:fs";
import { open, readdir, stat, unlink, type FileHandle } from "node:fs/promises";
import path from "node:path";
import { compileOptions } from "../../validation/ajv.js";
import { int, object, string, withDefault, type Filled, type TypeOf } from "../../validation/typed-schema.js";
import { analyzerSignature } from "./analyzer-signature.js";
import { errnoCode, fileDistrust, folderDistrust, READ_FLAGS } from "../../state/folder-trust.js";
import { acquireLock } from "../../state/file-lock.js";
import { writeFileAtomic } from "../../state/atomic-write.js";
import { errorMessage } from "../../errors.js";
import { printable } from "../../text/printable.js";

/** The shortest index cache key taken (an HMAC key that can be guessed is no key). */
export const MIN_SNAPSHOT_KEY_LENGTH = 16;

const SNAPSHOT_FORMAT = 2;
const MAGIC = Buffer.from("TSIDX\u0000\u0001\n", "latin1");
const MAX_HEADER_BYTES = 4_096;
const MAC_BYTES = 32;
const SUFFIX = ".tsidx";
/** Temp files older than this are a crashed writer's: removed when the folder is pruned. */
const STALE_TEMP_MS = 10 * 60_000;

interface Header {
  format: number;
  signature: string;
  kind: string;
  fingerprint: string;
  docs: number;
  /** fingerprintDocs() of the docs the index was built from (the fingerprint may be a caller's catalog version). */
  docsDigest: string;
  bytes: number;
  sha256: string;
  /** Present when a MAC follows the payload. */
  mac?: "hmac-sha256";
}

/** Index snapshots on disk (createToolSearch's `indexCache`): the folder, and the bounds on what is read, kept and waited for. */
export const indexSnapshotSchema = object(
  {
    /** The folder (created if missing, mode 0700); shared by every worker and replica of one catalog. Not used when others can write it. */
    dir: string({ minLength: 1 }),
    /** Largest snapshot read or written, bytes (default 256 MiB). */
    maxBytes: withDefault(int(1_024, 4 * 1024 * 1024 * 1024), 256 * 1024 * 1024),
    /** Snapshots kept, newest first (default 4). */
    keep: withDefault(int(1, 1_000), 4),
    /** How long a process waits for another's build before building itself, ms (default 60000; 0: never wait). */
    lockWaitMs: withDefault(int(0, 3_600_000), 60_000),
    /**
     * HMAC-SHA256 key (at least 16 characters): snapshots are written with a MAC over all their
     * bytes, and one without a valid MAC is deleted and rebuilt. A snapshot whose MAC checks is
     * not re-analysed at load (its postings' bounds still are). None by default.
     */
    key: string({ minLength: MIN_SNAPSHOT_KEY_LENGTH }),
    /** SQL run on a snapshot while it is checked and loaded is interrupted after this many ms (default 10000). */
    loadTimeoutMs: withDefault(int(100, 600_000), 10_000),
  },
  { required: ["dir"] },
);

/** Index snapshot options, `dir` required and the rest optional: indexSnapshotSchema documents each one, its range and default. */
export type IndexSnapshotOptions = TypeOf<typeof indexSnapshotSchema>;

/** The options as their schema leaves them: every one with a default present. */
export type ResolvedSnapshotOptions = Filled<typeof indexSnapshotSchema>;

const check = compileOptions("indexCache", indexSnapshotSchema);

function resolveSnapshotOptions(value: unknown, where = "indexCache"): ResolvedSnapshotOptions {
  // The key never appears in an error message.
  const shown = typeof value === "object" && value !== null && "key" in value ? { ...value, key: "<redacted>" } : value;
  return check(value, where, shown);
}

export type SnapshotRead =
  | {
      ok: true;
      payload: Uint8Array;
      docs: number;
      docsDigest: string;
      /** The MAC was checked with this store's key: the snapshot was written by a holder of the key. */
      authenticated: boolean;
    }
  | { ok: false; reason: string };

/** What a snapshot claims to index, written into its header. */
export interface SnapshotMeta {
  docs: number;
  docsDigest: string;
}

/** Where the store reports what it rejected or could not use (default: process.emitWarning). */
export type SnapshotWarn = (message: string) => void;

const defaultWarn: SnapshotWarn = (message) => process.emitWarning(`toolsearch: ${message}`, { code: "TOOLSEARCH_INDEX_CACHE" });

const sha256 = (bytes: Uint8Array): string => createHash("sha256").update(bytes).digest("hex");
const safe = (s: string): string => s.replace(/[^A-Za-z0-9_.-]/g, "_").slice(0, 128);

export class SnapshotStore {
  readonly options: ResolvedSnapshotOptions;
  readonly #warn: SnapshotWarn;
  readonly #key: Buffer | undefined;
  /** Folder problems already reported: each once per store, not once per build. */
  readonly #reported = new Set<string>();

  constructor(options: IndexSnapshotOptions, warn: SnapshotWarn = defaultWarn) {
    this.options = resolveSnapshotOptions(options);
    this.#warn = (message) => warn(printable(message));
    this.#key = this.options.key === undefined ? undefined : Buffer.from(this.options.key, "utf8");
    // 0700 when created here: a folder made under a umask of 002 would be group-writable, and not used.
    mkdirSync(this.options.dir, { recursive: true, mode: 0o700 });
  }

  file(kind: string, fingerprint: string): string {
    return path.join(this.options.dir, `${safe(kind)}-${safe(fingerprint)}${SUFFIX}`);
  }

  /** Whether the snapshot carries a MAC this store checks (a key is set). */
  get keyed(): boolean {
    return this.#key !== undefined;
  }

  /**
   * Why the folder must not be used (others can write in it, so any file there may be
   * planted), or undefined. Reported once per store; checked before every use, since a mode
   * can change.
   */
  async distrust(): Promise<string | undefined> {
    const dir = this.options.dir;
    const why = await stat(dir).then(
      (info) => folderDistrust(dir, info),
      (error: unknown) => `${dir} cannot be read (${errnoCode(error) ?? String(error)})`,
    );
    if (why !== undefined && !this.#reported.has(why)) {
      this.#reported.add(why);
      this.#warn(`index cache folder not used: ${why}; indexes are built in memory`);
    }
    return why;
  }

  /** The payload when a valid snapshot exists; otherwise why not (a bad file is deleted and reported). */
  async read(kind: string, fingerprint: string): Promise<SnapshotRead> {
    const file = this.file(kind, fingerprint);
    let handle: FileHandle;
    try {
      handle = await open(file, READ_FLAGS);
    } catch (error) {
      if (errnoCode(error) === "ENOENT") return { ok: false, reason: "no snapshot" };
      // ELOOP: a symbolic link (O_NOFOLLOW).
      return this.#reject(file, errnoCode(error) === "ELOOP" ? "a symbolic link" : `unreadable (${errnoCode(error) ?? String(error)})`);
    }
    let bytes: Buffer;
    try {
      const info = await handle.stat();
      const foreign = fileDistrust(info);
      if (foreign !== undefined) return await this.#reject(file, foreign);
      const size = info.size;
      const limit = this.options.maxBytes + MAGIC.length + 4 + MAX_HEADER_BYTES + MAC_BYTES;
      if (size > limit) return await this.#reject(file, `the snapshot is ${size} bytes, over the ${limit}-byte cap`);
      // Read at most what stat said (capped above): a file that grew meanwhile is cut, and fails its checksum.
      bytes = Buffer.alloc(size);
      const { bytesRead } = await handle.read(bytes, 0, size, 0);
      bytes = bytes.subarray(0, bytesRead);
    } finally {
      await handle.close();
    }
    const parsed = parse(bytes);
    if (typeof parsed === "string") return this.#reject(file, parsed);
    const { header, payload, signed, mac } = parsed;
    const why =
      header.format !== SNAPSHOT_FORMAT
        ? `format ${header.format}, not ${SNAPSHOT_FORMAT}`
        : header.signature !== analyzerSignature()
          ? "built by another analyzer (another version of toolsearch)"
          : header.kind !== kind
            ? `backend "${header.kind}", not "${kind}"`
            : header.fingerprint !== fingerprint
              ? "another catalog's fingerprint"
              : header.bytes !== payload.byteLength
                ? `${payload.byteLength} payload bytes where the header says ${header.bytes}`
                : this.#key !== undefined && mac === undefined
                  ? "no MAC (written without indexCacheKey), and a key is set"
                  : this.#key !== undefined && !timingSafeEqual(this.#mac(signed), mac!)
                    ? "MAC mismatch (written with another key, or changed since)"
                    : sha256(payload) !== header.sha256
                      ? "checksum mismatch"
                      : undefined;
    if (why !== undefined) return this.#reject(file, why);
    return { ok: true, payload, docs: header.docs, docsDigest: header.docsDigest, authenticated: this.#key !== undefined };
  }

  /** Writes atomically (temp file, rename), then prunes the folder to the `keep` newest. A payload over maxBytes is not written. */
  async write(kind: string, fingerprint: string, meta: SnapshotMeta, payload: Uint8Array): Promise<{ ok: true } | { ok: false; reason: string }> {
    if (payload.byteLength > this.options.maxBytes)
      return { ok: false, reason: `the snapshot is ${payload.byteLength} bytes, over maxBytes ${this.options.maxBytes}` };
    const header: Header = {
      format: SNAPSHOT_FORMAT,
      signature: analyzerSignature(),
      kind,
      fingerprint,
      docs: meta.docs,
      docsDigest: meta.docsDigest,
      bytes: payload.byteLength,
      sha256: sha256(payload),
      ...(this.#key !== undefined ? { mac: "hmac-sha256" as const } : {}),
    };
    const json = Buffer.from(JSON.stringify(header), "utf8");
    const length = Buffer.alloc(4);
    length.writeUInt32LE(json.length);
    const signed = Buffer.concat([MAGIC, length, json, payload]);
    const file = this.file(kind, fingerprint);
    try {
      await writeFileAtomic(file, this.#key === undefined ? [signed] : [signed, this.#mac(signed)]);
    } catch (error) {
      // Not fatal: the index is built and in use; the next process builds again.
      return { ok: false, reason: `could not write ${file}: ${errorMessage(error)}` };
    }
    await this.prune();
    return { ok: true };
  }

  /** Deletes a snapshot (e.g. one that failed the backend's checks) and reports why. */
  async discard(kind: string, fingerprint: string, reason?: string): Promise<void> {
    const file = this.file(kind, fingerprint);
    await unlink(file).catch(() => {});
    if (reason !== undefined) this.#warn(`index snapshot ${file} deleted: ${reason}`);
  }

  /**
   * Takes the build lock for this catalog: true when this process should build (it got the
   * lock, or waited `lockWaitMs` in vain, or the lock cannot be taken); false when another
   * process's snapshot appeared. Call release() after writing. A lock whose holder is gone (no
   * such pid, or the pid is another process's now) is reported and broken at once; one from
   * another host, whose holder this host cannot see, when it is older than lockWaitMs.
   */
  async lock(kind: string, fingerprint: string): Promise<{ build: boolean; release: () => Promise<void> }> {
    const snapshot = this.file(kind, fingerprint);
    const lock = await acquireLock(`${snapshot}.lock`, {
      waitMs: this.options.lockWaitMs,
      staleMs: this.options.lockWaitMs,
      warn: (message) => this.#warn(`index cache ${message}`),
      stopWaiting: () =>
        stat(snapshot).then(
          () => true,
          () => false,
        ),
    });
    if (lock.taken) return { build: true, release: lock.release };
    // Another process's snapshot appeared: load it. Any other refusal: build without the lock.
    return { build: lock.why !== "stopped", release: async () => {} };
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

  #mac(bytes: Uint8Array): Buffer {
    return createHmac("sha256", this.#key!).update(bytes).digest();
  }

  async #reject(file: string, reason: string): Promise<SnapshotRead> {
    await unlink(file).catch(() => {});
    this.#warn(`index snapshot ${file} deleted: ${reason}`);
    return { ok: false, reason: `snapshot rejected: ${reason}` };
  }
}

function parse(bytes: Buffer): { header: Header; payload: Uint8Array; signed: Uint8Array; mac: Buffer | undefined } | string {
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
  // Another format's header may have other fields: its format is the reason, not its shape.
  const format = (value as { format?: unknown } | null)?.format;
  if (typeof format === "number" && format !== SNAPSHOT_FORMAT) return `format ${format}, not ${SNAPSHOT_FORMAT}`;
  if (!isHeader(value)) return "malformed header";
  const end = value.mac === undefined ? bytes.length : bytes.length - MAC_BYTES;
  if (end < start + headerLength) return "truncated MAC";
  return {
    header: value,
    payload: new Uint8Array(bytes.buffer, bytes.byteOffset + start + headerLength, end - start - headerLength),
    signed: bytes.subarray(0, end),
    mac: value.mac === undefined ? undefined : bytes.subarray(end),
  };
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
    typeof v.docsDigest === "string" &&
    typeof v.bytes === "number" &&
    typeof v.sha256 === "string" &&
    (v.mac === undefined || v.mac === "hmac-sha256")
  );
}
