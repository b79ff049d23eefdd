import type { Database, Queryable } from "../runtime/database.ts";
import { revokeAccessToken } from "./access-control.ts";
import type { AccessTokens } from "./access-tokens.ts";
import type { Application } from "./application-store.ts";
import { oauthError } from "./oauth-errors.ts";
import type { RefreshTokens } from "./refresh-tokens.ts";
import { userById } from "./user-store.ts";

/** A token's state as RFC 7662 §2.2 answers it; an inactive token says nothing more. */
export interface Introspection {
  active: boolean;
  scope?: string;
  client_id?: string;
  username?: string;
  token_type?: string;
  exp?: number;
  iat?: number;
  sub?: string;
  iss?: string;
  jti?: string;
}

/**
 * Introspection (RFC 7662) for a client with the introspect scope: an access token's claims, with
 * the account's name for a user's token, or a refresh token's grant. A refused token is inactive,
 * whatever the reason; `hint` refresh_token skips the access token's check.
 */
export async function introspectToken(
  deps: { sql: Queryable; accessTokens: AccessTokens; refreshTokens: RefreshTokens; issuer: string },
  client: Application,
  token: { token: string; hint: string | undefined },
): Promise<Introspection> {
  if (!client.scopes.includes("introspect")) {
    throw oauthError("unauthorized_client", "introspection needs the introspect scope");
  }
  const { issuer } = deps;
  if (token.hint !== "refresh_token") {
    const claims = token.token ? await deps.accessTokens.verify(token.token) : undefined;
    if (typeof claims === "object") {
      const user = claims.userId ? await userById(deps.sql, claims.userId) : undefined;
      return {
        active: true,
        scope: claims.scopes.join(" "),
        client_id: claims.clientId,
        ...(user ? { username: user.account } : {}),
        token_type: "bearer",
        exp: claims.expiresAt,
        iat: claims.issuedAt,
        sub: claims.userId ?? claims.clientId,
        iss: issuer,
        jti: claims.jti,
      };
    }
  }
  const refresh = token.token ? await deps.refreshTokens.active(token.token) : undefined;
  if (!refresh) return { active: false };
  return {
    active: true,
    scope: refresh.scopes.join(" "),
    client_id: refresh.applicationId,
    token_type: "refresh_token",
    exp: Math.floor(refresh.expiresAt.getTime() / 1000),
    iat: Math.floor(refresh.createdAt.getTime() / 1000),
    sub: refresh.userId ?? refresh.applicationId,
    iss: issuer,
  };
}

/**
 * Revocation (RFC 7009) of a client's own token: an access token is refused by every gateway until
 * it expires; a refresh token's family is revoked with the access tokens it issued (§2.1). Another
 * client's token, or no token at all, changes nothing. Access tokens are JWTs and refresh tokens
 * opaque: no hint is needed to tell them apart.
 */
export async function revokeClientToken(
  deps: { db: Database; accessTokens: AccessTokens; refreshTokens: RefreshTokens },
  client: Application,
  token: string,
): Promise<void> {
  const access = token ? await deps.accessTokens.signedClaims(token) : undefined;
  if (access) {
    if (access.clientId === client.id) await revokeAccessToken(deps.db, access);
  } else if (token) {
    await deps.refreshTokens.revoke(token, client.id);
  }
}
