import { once } from "node:events";
import { Worker } from "node:worker_threads";

// The start case's reference: what `npm start` loads before it can serve, loaded the way it loads
// it, and nothing run. PGlite's modules and its WebAssembly on a thread without the TypeScript
// loader (as runtime/embedded-postgres-thread.mjs), the platform's modules meanwhile on the main
// thread (as bin/platform.ts and bin/processes.ts import them), then exit. A start over this is
// the database's start, the migrations' check, the bootstrap and the listening socket.
const database = new Worker(new URL("./pglite-modules.mjs", import.meta.url), { execArgv: [] });
const loaded = once(database, "message");
await Promise.all([
  import("../../runtime/embedded-postgres.ts"),
  import("../../runtime/process-main.ts"),
  import("../../runtime/config.ts"),
  import("../../bin/processes.ts"),
  import("../../runtime/shutdown.ts"),
  import("../../runtime/data-dir-lock.ts"),
  import("../../workers/job-parts.ts"),
]);
await loaded;
await database.terminate();
process.exit(0);
