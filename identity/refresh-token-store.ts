import type { Grant } from "../contracts/scopes.ts";
import type { Queryable } from "../runtime/database.ts";

/** What a refresh token grants: its family is every token rotated from one issue. */
export interface RefreshGrant {
  familyId: string;
  applicationId: string;
  userId: string | null;
  tenantId: string | null;
  grantType: Grant;
  scopes: string[];
}

/** Records a refresh token by its hash, usable for `ttlSeconds`. */
export async function insertRefreshToken(
  sql: Queryable,
  tokenHash: Buffer,
  grant: RefreshGrant,
  ttlSeconds: number,
): Promise<void> {
  await sql`
    insert into refresh_tokens (token_hash, family_id, application_id, user_id, tenant_id, grant_type, scopes, expires_at)
    values (${tokenHash}, ${grant.familyId}, ${grant.applicationId}, ${grant.userId},
            ${grant.tenantId}, ${grant.grantType}, ${grant.scopes},
            now() + make_interval(secs => ${ttlSeconds}))`;
}

/** A refresh token's grant and state, its row locked until the transaction ends. */
export async function lockRefreshToken(
  tx: Queryable,
  tokenHash: Buffer,
): Promise<(RefreshGrant & { rotated: boolean; revoked: boolean; expired: boolean }) | undefined> {
  const [row] = await tx<(RefreshGrant & { rotated: boolean; revoked: boolean; expired: boolean })[]>`
    select family_id as "familyId", application_id as "applicationId", user_id as "userId",
           tenant_id as "tenantId", grant_type as "grantType", scopes,
           rotated_at is not null as rotated, revoked_at is not null as revoked, expires_at <= now() as expired
    from refresh_tokens where token_hash = ${tokenHash} for update`;
  return row;
}

/** Marks a refresh token used. */
export async function markRefreshTokenRotated(sql: Queryable, tokenHash: Buffer): Promise<void> {
  await sql`update refresh_tokens set rotated_at = now() where token_hash = ${tokenHash}`;
}

/** Revokes every token of a family not revoked yet. */
export async function revokeRefreshFamily(sql: Queryable, familyId: string): Promise<void> {
  await sql`update refresh_tokens set revoked_at = now() where family_id = ${familyId} and revoked_at is null`;
}

/** The family of a refresh token the application holds, whatever its state; undefined for an unknown token. */
export async function refreshTokenFamily(
  sql: Queryable,
  tokenHash: Buffer,
  applicationId: string,
): Promise<string | undefined> {
  const [row] = await sql<{ familyId: string }[]>`
    select family_id as "familyId" from refresh_tokens
    where token_hash = ${tokenHash} and application_id = ${applicationId}`;
  return row?.familyId;
}

/** The grant of a refresh token still usable: neither rotated, revoked nor expired. */
export async function activeRefreshToken(
  sql: Queryable,
  tokenHash: Buffer,
): Promise<(RefreshGrant & { expiresAt: Date; createdAt: Date }) | undefined> {
  const [row] = await sql<(RefreshGrant & { expiresAt: Date; createdAt: Date })[]>`
    select family_id as "familyId", application_id as "applicationId", user_id as "userId",
           tenant_id as "tenantId", grant_type as "grantType", scopes,
           expires_at as "expiresAt", created_at as "createdAt"
    from refresh_tokens
    where token_hash = ${tokenHash} and rotated_at is null and revoked_at is null and expires_at > now()`;
  return row;
}
