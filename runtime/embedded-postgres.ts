import { once } from "node:events";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { Worker } from "node:worker_threads";

export interface EmbeddedPostgres {
  host: string;
  port: number;
  stop(): Promise<void>;
}

/** The embedded database's thread, which loads PGlite before it is told its data directory. */
export interface EmbeddedPostgresThread {
  worker: Worker;
  /** Rejects when the thread fails or exits. */
  ended: Promise<never>;
}

/**
 * Starts the embedded database's thread, which loads and compiles PGlite while its caller goes on
 * (npm start starts it before its own modules load); `startEmbeddedPostgres` gives it its data
 * directory. A thread that is not going to be used is ended with `worker.terminate()`.
 */
export function spawnEmbeddedPostgresThread(): EmbeddedPostgresThread {
  // Without the parent's flags: the thread is JavaScript and needs no TypeScript loader.
  const worker = new Worker(new URL("./embedded-postgres-thread.mjs", import.meta.url), { execArgv: [] });
  // It holds the process open only once it serves.
  worker.unref();
  const ended = new Promise<never>((_, reject) => {
    worker.once("error", reject);
    worker.once("exit", (code) => reject(new Error(`the embedded database's thread exited (code ${code})`)));
  });
  ended.catch(() => {});
  return { worker, ended };
}

/**
 * PGlite, the Postgres build that runs inside Node, served on a loopback port so the platform talks
 * to it with the same `postgres` client and migrations as to a real server. PGlite has one session,
 * so clients must use a single connection.
 *
 * It runs on a thread of its own: its start (and the queries it answers) then no longer wait for
 * the platform's modules to load or its requests to be handled, nor those for it.
 */
export async function startEmbeddedPostgres(
  dataDir: string,
  thread = spawnEmbeddedPostgresThread(),
): Promise<EmbeddedPostgres> {
  let unlock: () => Promise<void>;
  let listening: string;
  try {
    await mkdir(dataDir, { recursive: true });
    // Loaded here, not with this module: npm start loads this module before anything else.
    const { lockDataDirectory } = await import("./data-dir-lock.ts");
    unlock = await lockDataDirectory(dataDir);
  } catch (error) {
    await thread.worker.terminate();
    throw error;
  }
  try {
    thread.worker.ref();
    thread.worker.postMessage({ directory: join(dataDir, "postgres") });
    listening = (await reply<{ listening: string }>(thread)).listening;
  } catch (error) {
    await thread.worker.terminate();
    await unlock();
    throw error;
  }
  let stopping = false;
  thread.ended.catch((error: unknown) => {
    // Losing the database while serving ends the process, as an error of PGlite's own would.
    if (!stopping) throw error;
  });
  const [host, port] = listening.split(":");
  return {
    host: host!,
    port: Number(port),
    async stop() {
      stopping = true;
      const stopped = reply<{ stopped: true }>(thread);
      thread.worker.postMessage("stop");
      await stopped;
      await thread.worker.terminate();
      await unlock();
    },
  };
}

/** The thread's next message; its failure, or its exit before it answered, rejects. */
async function reply<T>(thread: EmbeddedPostgresThread): Promise<T> {
  const [message] = await Promise.race([once(thread.worker, "message"), thread.ended]);
  return message as T;
}
