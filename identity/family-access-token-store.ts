import type { Queryable } from "../runtime/database.ts";

/** Records an access token issued in a refresh-token family, until it expires (Unix seconds). */
export async function insertFamilyAccessToken(
  sql: Queryable,
  token: { familyId: string; jti: string; applicationId: string; expiresAt: number },
): Promise<void> {
  await sql`
    insert into family_access_tokens (jti, family_id, application_id, expires_at)
    values (${token.jti}, ${token.familyId}, ${token.applicationId}, to_timestamp(${token.expiresAt}))`;
}

/** Forgets the access tokens of families that have expired anyway. */
export async function deleteExpiredFamilyAccessTokens(sql: Queryable): Promise<void> {
  await sql`delete from family_access_tokens where expires_at <= now()`;
}
