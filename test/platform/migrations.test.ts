import assert from "node:assert/strict";
import { describe, it } from "node:test";
import postgres from "postgres";
import { loadConfig } from "../../runtime/config.ts";
import { openDatabase } from "../../runtime/database.ts";
import { migrate } from "../../runtime/migrations.ts";
import { freshDatabase, tempDir } from "../support/platform.ts";
import { realServices } from "../support/services.ts";
import { silentLogger } from "../support/wait.ts";

const services = await realServices();

async function tables(sql: postgres.Sql): Promise<string[]> {
  const rows = await sql`select tablename from pg_tables where schemaname = 'public' order by tablename`;
  return rows.map((r) => r.tablename as string);
}

describe("migrations", () => {
  it("apply once on PGlite and change nothing when run again", async () => {
    const dir = await tempDir();
    const db = await openDatabase(loadConfig({ DATA_DIR: dir.path }), silentLogger);
    try {
      const first = await migrate(db.sql, silentLogger);
      assert.ok(first.includes("0001_tenants.sql"));
      assert.deepEqual(await migrate(db.sql, silentLogger), []);
      assert.ok((await tables(db.sql)).includes("tenants"));
    } finally {
      await db.close();
      await dir.remove();
    }
  });

  it("keep the embedded data across a restart", async () => {
    const dir = await tempDir();
    const config = loadConfig({ DATA_DIR: dir.path });
    try {
      const first = await openDatabase(config, silentLogger);
      await migrate(first.sql, silentLogger);
      await first.sql`insert into tenants (domain, name) values ('kept.edu', 'Kept')`;
      await first.close();
      const second = await openDatabase(config, silentLogger);
      assert.deepEqual(await migrate(second.sql, silentLogger), []);
      const [row] = await second.sql`select name from tenants where domain = 'kept.edu'`;
      assert.equal(row?.name, "Kept");
      await second.close();
    } finally {
      await dir.remove();
    }
  });

  it("apply once on a fresh Postgres database, even when several processes start together", {
    skip: services ? false : "Postgres unreachable",
  }, async () => {
    const fresh = await freshDatabase(services!.databaseUrl);
    const clients = Array.from({ length: 4 }, () => postgres(fresh.url, { max: 2, onnotice: () => {} }));
    try {
      const results = await Promise.all(clients.map((sql) => migrate(sql, silentLogger)));
      const applied = results.flat();
      assert.equal(applied.filter((file) => file === "0001_tenants.sql").length, 1, "each file applied once");
      assert.deepEqual(await migrate(clients[0]!, silentLogger), []);
      const versions = await clients[0]!`select version from schema_migrations order by version`;
      assert.deepEqual(
        versions.map((v) => v.version),
        [...new Set(versions.map((v) => v.version))],
      );
      assert.ok((await tables(clients[0]!)).includes("tenants"));
    } finally {
      await Promise.all(clients.map((sql) => sql.end()));
      await fresh.drop();
    }
  });
});
