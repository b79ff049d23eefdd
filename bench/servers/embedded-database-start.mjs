// The start case's reference: the embedded database's own start, which every start of `npm start`
// contains. A process that starts the database's thread as the platform does
// (runtime/embedded-postgres-thread.mjs: PGlite loaded and compiled, the cluster opened, served on
// a loopback port), connects to it with the platform's client, answers one query, prints `ready`
// and stops. A platform start over this is the platform's own work: its modules, the migrations'
// check, the bootstrap, the routes and the listening socket.
import { once } from "node:events";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import postgres from "postgres";

const [dataDir] = process.argv.slice(2);
const thread = new Worker(new URL("../../runtime/embedded-postgres-thread.mjs", import.meta.url), {
  execArgv: [],
});
thread.postMessage({ directory: join(dataDir, "postgres") });
const [{ listening }] = await once(thread, "message");
const [host, port] = listening.split(":");
const sql = postgres({
  host,
  port: Number(port),
  username: "postgres",
  database: "postgres",
  max: 1,
  onnotice() {},
});
await sql`select 1`;
process.stdout.write("ready\n");
await sql.end();
thread.postMessage("stop");
await once(thread, "message");
await thread.terminate();
