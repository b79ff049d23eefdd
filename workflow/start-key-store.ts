import type { Queryable } from "../runtime/database.ts";

/** An application's key of a start, in a tenant and data mode. */
export interface StartKey {
  tenantId: string;
  test: boolean;
  clientId: string;
  key: string;
}

/** How long a key answers with its process: a retry comes within minutes, a day is ample. */
const KEY_LIFETIME = "24 hours";

/**
 * Takes the key for a start about to be made: true when it is the caller's to use (new, or older
 * than its lifetime). A concurrent start with the same key waits here until the first commits,
 * then finds it taken.
 */
export async function claimStartKey(sql: Queryable, key: StartKey, requestDigest: string): Promise<boolean> {
  const rows = await sql`
    insert into workflow_start_keys (tenant_id, test, client_id, key, request_digest)
    values (${key.tenantId}, ${key.test}, ${key.clientId}, ${key.key}, ${requestDigest})
    on conflict (tenant_id, test, client_id, key) do update
      set request_digest = excluded.request_digest, process_id = null, created_at = now()
      where workflow_start_keys.created_at < now() - ${KEY_LIFETIME}::interval
    returning 1`;
  return rows.length === 1;
}

/** The start a taken key made: its request's digest and process (none when it failed and rolled back). */
export async function startOfKey(
  sql: Queryable,
  key: StartKey,
): Promise<{ requestDigest: string; processId: string | null } | undefined> {
  const [row] = await sql<{ requestDigest: string; processId: string | null }[]>`
    select request_digest as "requestDigest", process_id as "processId" from workflow_start_keys
    where tenant_id = ${key.tenantId} and test = ${key.test} and client_id = ${key.clientId} and key = ${key.key}`;
  return row;
}

export async function setStartKeyProcess(sql: Queryable, key: StartKey, processId: string): Promise<void> {
  await sql`
    update workflow_start_keys set process_id = ${processId}
    where tenant_id = ${key.tenantId} and test = ${key.test} and client_id = ${key.clientId} and key = ${key.key}`;
}
