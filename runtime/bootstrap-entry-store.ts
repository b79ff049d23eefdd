import type { Queryable } from "./database.ts";

const BOOTSTRAP_LOCK = 7_301_002;

/** Holds the bootstrap lock until the transaction ends, so one process applies the file at a time. */
export async function lockBootstrapEntries(tx: Queryable): Promise<void> {
  await tx`select pg_advisory_xact_lock(${BOOTSTRAP_LOCK})`;
}

/** An entry of the bootstrap file: its kind (`tenant`, `application`, …), its key, its digest. */
export interface BootstrapEntryDigest {
  kind: string;
  key: string;
  /** Hex SHA-256 of what the file said of the entry. */
  digest: string;
}

/** The digests recorded when each entry of these kinds was last applied, by `kind key`. */
export async function appliedDigests(sql: Queryable, kinds: string[]): Promise<Map<string, string>> {
  const rows = await sql<BootstrapEntryDigest[]>`
    select kind, key, digest from bootstrap_entries where kind = any(${kinds})`;
  return new Map(rows.map((row) => [`${row.kind} ${row.key}`, row.digest]));
}

export async function recordAppliedDigests(sql: Queryable, entries: BootstrapEntryDigest[]): Promise<void> {
  if (entries.length === 0) return;
  await sql`
    insert into bootstrap_entries (kind, key, digest)
    select * from unnest(${entries.map((e) => e.kind)}::text[], ${entries.map((e) => e.key)}::text[],
                         ${entries.map((e) => e.digest)}::text[])
    on conflict (kind, key) do update set digest = excluded.digest, applied_at = now()`;
}
