import { randomUUID } from "node:crypto";
import type { Grant } from "../../contracts/scopes.ts";
import type { Queryable, Sql } from "../../runtime/database.ts";
import { hashSecret, newSecret } from "../../runtime/directory/secrets.ts";

export interface RefreshGrant {
  familyId: string;
  applicationId: string;
  userId: string | null;
  tenantId: string | null;
  grantType: Grant;
  scopes: string[];
}

export type RotationResult = { ok: true; grant: RefreshGrant } | { ok: false; reason: string };

/** Opaque refresh tokens, stored as hashes, rotated on every use. */
export class RefreshTokens {
  constructor(
    private readonly sql: Sql,
    private readonly ttlSeconds: number,
  ) {}

  async issue(
    grant: Omit<RefreshGrant, "familyId"> & { familyId?: string },
    tx: Queryable = this.sql,
  ): Promise<string> {
    const token = newSecret();
    await tx`
      insert into refresh_tokens (token_hash, family_id, application_id, user_id, tenant_id, grant_type, scopes, expires_at)
      values (${hashSecret(token)}, ${grant.familyId ?? randomUUID()}, ${grant.applicationId}, ${grant.userId},
              ${grant.tenantId}, ${grant.grantType}, ${grant.scopes},
              now() + make_interval(secs => ${this.ttlSeconds}))`;
    return token;
  }

  /**
   * Marks the token used and returns its grant, once. Presenting a token already rotated means it
   * leaked (or a client replays it): the whole family is revoked.
   */
  async rotate(token: string, applicationId: string): Promise<RotationResult> {
    const hash = hashSecret(token);
    return this.sql.begin(async (tx) => {
      const [row] = await tx<(RefreshGrant & { rotated: boolean; revoked: boolean; expired: boolean })[]>`
        select family_id as "familyId", application_id as "applicationId", user_id as "userId",
               tenant_id as "tenantId", grant_type as "grantType", scopes,
               rotated_at is not null as rotated, revoked_at is not null as revoked, expires_at <= now() as expired
        from refresh_tokens where token_hash = ${hash} for update`;
      if (!row || row.applicationId !== applicationId) return { ok: false, reason: "unknown refresh token" };
      if (row.rotated) {
        await tx`update refresh_tokens set revoked_at = now() where family_id = ${row.familyId} and revoked_at is null`;
        return { ok: false, reason: "refresh token already used; its family is revoked" };
      }
      if (row.revoked) return { ok: false, reason: "refresh token revoked" };
      if (row.expired) return { ok: false, reason: "refresh token expired" };
      await tx`update refresh_tokens set rotated_at = now() where token_hash = ${hash}`;
      const { rotated: _r, revoked: _v, expired: _e, ...grant } = row;
      return { ok: true, grant };
    });
  }

  /** Revokes the family of a refresh token the application holds (RFC 7009); unknown tokens are ignored. */
  async revoke(token: string, applicationId: string): Promise<void> {
    await this.sql`
      update refresh_tokens set revoked_at = now()
      where revoked_at is null and family_id = (
        select family_id from refresh_tokens where token_hash = ${hashSecret(token)} and application_id = ${applicationId})`;
  }

  async revokeFamily(familyId: string): Promise<void> {
    await this
      .sql`update refresh_tokens set revoked_at = now() where family_id = ${familyId} and revoked_at is null`;
  }

  /** The grant of a refresh token still usable, for introspection. */
  async active(token: string): Promise<(RefreshGrant & { expiresAt: Date; createdAt: Date }) | undefined> {
    const [row] = await this.sql<(RefreshGrant & { expiresAt: Date; createdAt: Date })[]>`
      select family_id as "familyId", application_id as "applicationId", user_id as "userId",
             tenant_id as "tenantId", grant_type as "grantType", scopes,
             expires_at as "expiresAt", created_at as "createdAt"
      from refresh_tokens
      where token_hash = ${hashSecret(token)} and rotated_at is null and revoked_at is null and expires_at > now()`;
    return row;
  }
}
