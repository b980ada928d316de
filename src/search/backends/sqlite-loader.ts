/**
 * Loads the SQLite WASM module once per process (per worker thread). Instantiating the
 * module (compiling the WASM, several MiB of memory) costs more than building a small index,
 * so every snapshot written or read in a thread (and the learning store) shares one; and it is
 * imported here, at the first load, so a process that never reads or writes a snapshot never loads it.
 *
 * The package is pinned at 3.50.4-build1, the last release that both runs on Node 20 and says
 * so: 3.51.2 and later declare `engines: node >= 22` (npm warns EBADENGINE on the Node 20 this
 * project supports), and the 3.51.x builds without that field ship no `sqlite3-node.mjs` for their
 * Node entry. Snapshots only use the long-stable serialize/deserialize API.
 */
import type { Sqlite3Static } from "@sqlite.org/sqlite-wasm";

export type { Sqlite3Static };

// The published d.ts hides init's Emscripten options on purpose; the runtime still takes
// them, and print/printErr silence the module's console chatter.
type InitWithOptions = (options: { print(): void; printErr(): void }) => Promise<Sqlite3Static>;

let loading: Promise<Sqlite3Static> | undefined;

/** The process-wide SQLite module. A failed load is not memoised, so a later call retries. */
export function loadSqlite(): Promise<Sqlite3Static> {
  if (loading === undefined) {
    loading = import("@sqlite.org/sqlite-wasm")
      .then(({ default: init }) => (init as unknown as InitWithOptions)({ print() {}, printErr() {} }))
      .catch((error: unknown) => {
        loading = undefined;
        throw error;
      });
  }
  return loading;
}
