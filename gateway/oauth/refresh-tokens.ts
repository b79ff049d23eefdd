import { randomUUID } from "node:crypto";
import { type Queryable, type Sql, transaction } from "../../runtime/database.ts";
import { hashSecret, newSecret } from "../../runtime/secrets.ts";
import {
  activeRefreshToken,
  insertRefreshToken,
  lockRefreshToken,
  markRefreshTokenRotated,
  type RefreshGrant,
  revokeRefreshFamily,
  revokeRefreshFamilyOf,
} from "../../runtime/store/refresh-tokens.ts";

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
    await insertRefreshToken(
      tx,
      hashSecret(token),
      { ...grant, familyId: grant.familyId ?? randomUUID() },
      this.ttlSeconds,
    );
    return token;
  }

  /**
   * Marks the token used and returns its grant, once. Presenting a token already rotated means it
   * leaked (or a client replays it): the whole family is revoked.
   */
  async rotate(token: string, applicationId: string): Promise<RotationResult> {
    const hash = hashSecret(token);
    return transaction(this.sql, async (tx) => {
      const row = await lockRefreshToken(tx, hash);
      if (!row || row.applicationId !== applicationId) return { ok: false, reason: "unknown refresh token" };
      if (row.rotated) {
        await revokeRefreshFamily(tx, row.familyId);
        return { ok: false, reason: "refresh token already used; its family is revoked" };
      }
      if (row.revoked) return { ok: false, reason: "refresh token revoked" };
      if (row.expired) return { ok: false, reason: "refresh token expired" };
      await markRefreshTokenRotated(tx, hash);
      const { rotated: _r, revoked: _v, expired: _e, ...grant } = row;
      return { ok: true, grant };
    });
  }

  /** Revokes the family of a refresh token the application holds (RFC 7009); unknown tokens are ignored. */
  async revoke(token: string, applicationId: string): Promise<void> {
    await revokeRefreshFamilyOf(this.sql, hashSecret(token), applicationId);
  }

  async revokeFamily(familyId: string): Promise<void> {
    await revokeRefreshFamily(this.sql, familyId);
  }

  /** The grant of a refresh token still usable, for introspection. */
  async active(token: string): Promise<(RefreshGrant & { expiresAt: Date; createdAt: Date }) | undefined> {
    return await activeRefreshToken(this.sql, hashSecret(token));
  }
}
