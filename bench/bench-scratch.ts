import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { freshDatabase, tempDir } from "../test/support/platform.ts";
import { DATABASE_URL } from "./platform-env.ts";

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
