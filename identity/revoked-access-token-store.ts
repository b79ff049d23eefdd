import type { Queryable } from "../runtime/database.ts";

/** Records an access token revoked before its expiry (RFC 7009); revoking it twice changes nothing. */
export async function insertRevokedAccessToken(
  sql: Queryable,
  token: { jti: string; applicationId: string; expiresAt: number },
): Promise<void> {
  await sql`
    insert into revoked_access_tokens (jti, application_id, expires_at)
    values (${token.jti}, ${token.applicationId}, to_timestamp(${token.expiresAt}))
    on conflict (jti) do nothing`;
}

/**
 * Revokes the access tokens a refresh-token family issued that have not expired; returns those not
 * revoked before, with their expiry in Unix seconds.
 */
export async function insertRevokedFamilyAccessTokens(
  sql: Queryable,
  familyId: string,
): Promise<{ jti: string; expiresAt: number }[]> {
  return sql<{ jti: string; expiresAt: number }[]>`
    insert into revoked_access_tokens (jti, application_id, expires_at)
    select jti, application_id, expires_at from family_access_tokens
    where family_id = ${familyId} and expires_at > now()
    on conflict (jti) do nothing
    returning jti, extract(epoch from expires_at)::int as "expiresAt"`;
}

/** The revoked access tokens that have not expired yet, with their expiry in Unix seconds. */
export async function liveRevokedAccessTokens(sql: Queryable): Promise<{ jti: string; expiresAt: number }[]> {
  return sql<{ jti: string; expiresAt: number }[]>`
    select jti, extract(epoch from expires_at)::int as "expiresAt"
    from revoked_access_tokens where expires_at > now()`;
}

/** Forgets revocations of tokens that have expired anyway. */
export async function deleteExpiredRevokedAccessTokens(sql: Queryable): Promise<void> {
  await sql`delete from revoked_access_tokens where expires_at <= now()`;
}
