import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import postgres from "postgres";
import { Agent } from "undici";
import { freshDatabase, tempDir } from "../test/support/platform.ts";
import { startServer } from "./load.ts";
import { DATABASE_URL, PLATFORM_SERVER, platformEnv } from "./platform-env.ts";

/** A case's own data directory and database, and its bootstrap file written into the directory. */
export async function benchScratch(bootstrap: unknown) {
  const dir = await tempDir("op-bench-");
  const db = await freshDatabase(DATABASE_URL);
  const file = join(dir.path, "bootstrap.json");
  await writeFile(file, JSON.stringify(bootstrap));
  const remove = async () => {
    await db.drop();
    await dir.remove();
  };
  return { dir, db, bootstrap: file, remove };
}

/**
 * A gateway process on a case's scratch data, with a one-connection client for the database and
 * one for HTTP; `close` stops them all and removes the scratch.
 */
export async function benchGateway(
  port: number,
  scratch: Awaited<ReturnType<typeof benchScratch>>,
  env: Record<string, string>,
) {
  const platform = await startServer(PLATFORM_SERVER, port, {
    ...platformEnv(scratch.dir.path, scratch.db.url, scratch.bootstrap),
    ...env,
    BENCH_PROCESS: "gateway",
  });
  const sql = postgres(scratch.db.url, { max: 1, onnotice: () => {} });
  const client = new Agent({ connections: 1 });
  return {
    sql,
    client,
    url: `http://127.0.0.1:${port}`,
    async close() {
      await client.close();
      await sql.end();
      await platform.stop();
      await scratch.remove();
    },
  };
}
