import { readdir, readFile } from "node:fs/promises";
import { type Sql, transaction } from "./database.ts";
import type { Logger } from "./logger.ts";

const MIGRATIONS_DIR = new URL("./migrations/", import.meta.url);
const MIGRATION_FILE = /^(\d{4})_([a-z0-9_]+)\.sql$/;
/** Advisory lock key held while migrating, so processes starting together apply each file once. */
const MIGRATION_LOCK = 7_301_001;

interface Migration {
  version: number;
  name: string;
  file: string;
}

async function listMigrations(): Promise<Migration[]> {
  const files = await readdir(MIGRATIONS_DIR);
  return files
    .map((file) => {
      const match = MIGRATION_FILE.exec(file);
      return match ? { version: Number(match[1]), name: match[2]!, file } : undefined;
    })
    .filter((m): m is Migration => m !== undefined)
    .sort((a, b) => a.version - b.version);
}

/** Applies the numbered SQL files not yet applied, in order, in one transaction. Returns their names. */
export async function migrate(sql: Sql, log: Logger): Promise<string[]> {
  const migrations = await listMigrations();
  const applied = await transaction(sql, async (tx) => {
    await tx`select pg_advisory_xact_lock(${MIGRATION_LOCK})`;
    await tx`
      create table if not exists schema_migrations (
        version integer primary key,
        name text not null,
        applied_at timestamptz not null default now()
      )`;
    const done = new Set(
      (await tx<{ version: number }[]>`select version from schema_migrations`).map((r) => r.version),
    );
    const newlyApplied: string[] = [];
    for (const migration of migrations) {
      if (done.has(migration.version)) continue;
      const text = await readFile(new URL(migration.file, MIGRATIONS_DIR), "utf8");
      await tx.unsafe(text).simple();
      await tx`insert into schema_migrations (version, name) values (${migration.version}, ${migration.name})`;
      newlyApplied.push(migration.file);
    }
    return newlyApplied;
  });
  if (applied.length > 0) log.info({ applied }, "database migrated");
  return applied;
}
