import type { Queryable } from "../../runtime/database.ts";

/** An app's signing secret as stored: encrypted (AES-256-GCM) under the key `keyId` names. */
export interface SealedSecret {
  keyId: string;
  nonce: Buffer;
  ciphertext: Buffer;
  tag: Buffer;
}

export async function readCallbackSecret(sql: Queryable, appId: string): Promise<SealedSecret | undefined> {
  const [row] = await sql<SealedSecret[]>`
    select key_id as "keyId", nonce, ciphertext, tag from workflow_callback_secrets where app_id = ${appId}`;
  return row;
}

/**
 * Stores the app's secret: in place of the one it had (`replace`), or only when it has none, so
 * that of processes making its first secret together, one's stays.
 */
export async function storeCallbackSecret(
  sql: Queryable,
  appId: string,
  sealed: SealedSecret,
  replace: boolean,
): Promise<void> {
  const conflict = replace
    ? sql`do update set key_id = excluded.key_id, nonce = excluded.nonce, ciphertext = excluded.ciphertext,
            tag = excluded.tag, created_at = now()`
    : sql`do nothing`;
  await sql`
    insert into workflow_callback_secrets (app_id, key_id, nonce, ciphertext, tag)
    values (${appId}, ${sealed.keyId}, ${sealed.nonce}, ${sealed.ciphertext}, ${sealed.tag})
    on conflict (app_id) ${conflict}`;
}
