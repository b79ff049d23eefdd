import { randomUUID } from "node:crypto";
import { type Database, type Queryable, transaction } from "../runtime/database.ts";
import { hashSecret, newSecret } from "../runtime/secrets.ts";
import { revokeFamilyAccessTokens } from "./access-control.ts";
import { insertFamilyAccessToken } from "./family-access-token-store.ts";
import {
  activeRefreshToken,
  insertRefreshToken,
  lockRefreshToken,
  markRefreshTokenRotated,
  type RefreshGrant,
  refreshTokenFamily,
  revokeRefreshFamily,
} from "./refresh-token-store.ts";

export type RotationResult = { ok: true; grant: RefreshGrant } | { ok: false; reason: string };

/**
 * Opaque refresh tokens, stored as hashes, rotated on every use. The tokens rotated from one grant
 * are a family, which also knows the access tokens it issued: revoking a family revokes them too.
 */
export class RefreshTokens {
  constructor(
    private readonly db: Database,
    private readonly ttlSeconds: number,
  ) {}

  private get sql() {
    return this.db.sql;
  }

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
    let replayedFamily: string | undefined;
    const result = await transaction(this.sql, async (tx): Promise<RotationResult> => {
      const row = await lockRefreshToken(tx, hash);
      if (!row || row.applicationId !== applicationId) return { ok: false, reason: "unknown refresh token" };
      if (row.rotated) {
        await revokeRefreshFamily(tx, row.familyId);
        replayedFamily = row.familyId;
        return { ok: false, reason: "refresh token already used; its family is revoked" };
      }
      if (row.revoked) return { ok: false, reason: "refresh token revoked" };
      if (row.expired) return { ok: false, reason: "refresh token expired" };
      await markRefreshTokenRotated(tx, hash);
      const { rotated: _r, revoked: _v, expired: _e, ...grant } = row;
      return { ok: true, grant };
    });
    // Announced once the family's revocation is committed.
    if (replayedFamily) await revokeFamilyAccessTokens(this.db, replayedFamily);
    return result;
  }

  /**
   * Revokes the family of a refresh token the application holds, and the access tokens it issued
   * (RFC 7009 §2.1); unknown tokens are ignored.
   */
  async revoke(token: string, applicationId: string): Promise<void> {
    const familyId = await refreshTokenFamily(this.sql, hashSecret(token), applicationId);
    if (familyId) await this.revokeFamily(familyId);
  }

  /** Revokes the family's refresh tokens and the access tokens it issued. */
  async revokeFamily(familyId: string): Promise<void> {
    await revokeRefreshFamily(this.sql, familyId);
    await revokeFamilyAccessTokens(this.db, familyId);
  }

  /** Counts an access token among those the family issued, before it is handed out. */
  async recordAccessToken(
    familyId: string,
    applicationId: string,
    token: { jti: string; expiresAt: number },
  ): Promise<void> {
    await insertFamilyAccessToken(this.sql, {
      familyId,
      applicationId,
      jti: token.jti,
      expiresAt: token.expiresAt,
    });
  }

  /** The grant of a refresh token still usable, for introspection. */
  async active(token: string): Promise<(RefreshGrant & { expiresAt: Date; createdAt: Date }) | undefined> {
    return await activeRefreshToken(this.sql, hashSecret(token));
  }
}
