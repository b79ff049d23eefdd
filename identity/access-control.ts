import type { Database } from "../runtime/database.ts";
import { setApplicationDisabled } from "./application-store.ts";
import { insertRevokedAccessToken, insertRevokedFamilyAccessTokens } from "./revoked-access-token-store.ts";
import { setUserDisabled } from "./user-store.ts";

/**
 * The operator's and clients' changes to who may hold a working token: each is written, then
 * announced, so every gateway honours it within seconds.
 */

/** Revokes an access token (RFC 7009) until it expires. */
export async function revokeAccessToken(
  db: Database,
  token: { jti: string; clientId: string; expiresAt: number },
): Promise<void> {
  await insertRevokedAccessToken(db.sql, {
    jti: token.jti,
    applicationId: token.clientId,
    expiresAt: token.expiresAt,
  });
  await db.changes.announce({ kind: "access-token-revoked", jti: token.jti, expiresAt: token.expiresAt });
}

/**
 * Revokes, until they expire, the access tokens a refresh-token family issued: a replayed refresh
 * token or authorization code means its tokens may be in other hands.
 */
export async function revokeFamilyAccessTokens(db: Database, familyId: string): Promise<void> {
  for (const token of await insertRevokedFamilyAccessTokens(db.sql, familyId)) {
    await db.changes.announce({ kind: "access-token-revoked", jti: token.jti, expiresAt: token.expiresAt });
  }
}

/** Disables or enables an application, its tokens with it; false when there is none with that id. */
export async function setApplicationEnabled(db: Database, id: string, enabled: boolean): Promise<boolean> {
  if (!(await setApplicationDisabled(db.sql, id, !enabled))) return false;
  await db.changes.announce({ kind: "application", id, disabled: !enabled });
  return true;
}

/** Disables or enables the account `account@domain`, its tokens with it; its id, or undefined when there is none. */
export async function setUserEnabled(
  db: Database,
  domain: string,
  account: string,
  enabled: boolean,
): Promise<string | undefined> {
  const id = await setUserDisabled(db.sql, domain, account, !enabled);
  if (id) await db.changes.announce({ kind: "user", id, disabled: !enabled });
  return id;
}
