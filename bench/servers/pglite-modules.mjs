// The embedded database thread's loading, as runtime/embedded-postgres-thread.mjs does it, without
// opening a database: the start case's reference (see platform-modules.ts).
import { readFile } from "node:fs/promises";
import { parentPort } from "node:worker_threads";

await Promise.all([
  readFile(new URL("pglite.wasm", import.meta.resolve("@electric-sql/pglite"))).then((bytes) =>
    WebAssembly.compile(bytes),
  ),
  import("@electric-sql/pglite"),
  import("@electric-sql/pglite/contrib/pg_trgm"),
  import("@electric-sql/pglite-socket"),
  import("../../runtime/postgres-cluster.mjs"),
]);
parentPort.postMessage("loaded");
