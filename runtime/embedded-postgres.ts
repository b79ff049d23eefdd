import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import { PGLiteSocketServer } from "@electric-sql/pglite-socket";

export interface EmbeddedPostgres {
  host: string;
  port: number;
  stop(): Promise<void>;
}

/**
 * PGlite, the Postgres build that runs inside Node, served on a loopback port so the platform talks
 * to it with the same `postgres` client and migrations as to a real server. PGlite has one session,
 * so clients must use a single connection.
 */
export async function startEmbeddedPostgres(dataDir: string): Promise<EmbeddedPostgres> {
  const directory = join(dataDir, "postgres");
  await mkdir(directory, { recursive: true });
  const db = await PGlite.create({ dataDir: directory, extensions: { pg_trgm } });
  const server = new PGLiteSocketServer({ db, host: "127.0.0.1", port: 0 });
  await server.start();
  const [host, port] = server.getServerConn().split(":");
  return {
    host: host!,
    port: Number(port),
    async stop() {
      await server.stop();
      await db.close();
    },
  };
}
