// The embedded database on a thread of its own (see embedded-postgres.ts). JavaScript, not
// TypeScript: a thread with the TypeScript loader takes a fifth of a second longer to start, and
// the platform's start waits for this thread.
import { once } from "node:events";
import { readFile } from "node:fs/promises";
import { parentPort } from "node:worker_threads";

// Read and compiled while PGlite's modules load, not after, as PGlite itself would.
const pgliteWasm = readFile(new URL("pglite.wasm", import.meta.resolve("@electric-sql/pglite"))).then(
  (bytes) => WebAssembly.compile(bytes),
);
const [{ PGlite }, { pg_trgm }, { PGLiteSocketServer }, { ensureCluster }] = await Promise.all([
  import("@electric-sql/pglite"),
  import("@electric-sql/pglite/contrib/pg_trgm"),
  import("@electric-sql/pglite-socket"),
  import("./postgres-cluster.mjs"),
]);

/**
 * 32 MB of shared buffers rather than Postgres's 128 MB: the database zeroes them at every start,
 * which took a third of its start, and PGlite reads pages through the operating system's cache.
 */
const START_PARAMS = [...PGlite.defaultStartParams, "-c", "shared_buffers=32MB"];

/**
 * pg_trgm (the trigram indexes of the directory's and the workflow's search) with its library
 * loaded when Postgres first calls it, not while PGlite opens: PGlite would otherwise instantiate
 * it, linked against every symbol of PGlite's own module, as it starts, a quarter of a second of
 * every start. Loaded on first use, it takes a few dozen milliseconds, once.
 * @type {import("@electric-sql/pglite").Extension}
 */
const pgTrgmOnFirstUse = {
  name: pg_trgm.name,
  async setup(pg, emscriptenOpts) {
    const setup = await pg_trgm.setup(pg, emscriptenOpts);
    return {
      ...setup,
      emscriptenOpts: { ...(setup.emscriptenOpts ?? emscriptenOpts), noWasmDecoding: true },
    };
  },
};

// PGlite loads before the thread is told where its data directory is.
/** @type {[{ directory: string }]} */
const [{ directory }] = await once(parentPort, "message");
const pgliteWasmModule = await pgliteWasm;
await ensureCluster(directory, { startParams: START_PARAMS, pgliteWasmModule });
const db = await PGlite.create({
  dataDir: directory,
  extensions: { pg_trgm: pgTrgmOnFirstUse },
  startParams: START_PARAMS,
  pgliteWasmModule,
});
const server = new PGLiteSocketServer({ db, host: "127.0.0.1", port: 0 });
await server.start();
parentPort.once("message", async () => {
  await server.stop();
  await db.close();
  parentPort.postMessage({ stopped: true });
});
parentPort.postMessage({ listening: server.getServerConn() });
