import type { Config } from "../../runtime/config.ts";
import type { Sql } from "../../runtime/database.ts";
import { AccessTokens } from "./access-tokens.ts";
import { AuthorizationServer } from "./authorization-server.ts";
import { LoginLimiter } from "./login-limiter.ts";
import { RefreshTokens } from "./refresh-tokens.ts";

/** The authorization server's parts, built once at start. */
export interface OAuthServices {
  accessTokens: AccessTokens;
  refreshTokens: RefreshTokens;
  server: AuthorizationServer;
}

export async function createOAuthServices(sql: Sql, config: Config): Promise<OAuthServices> {
  const accessTokens = await AccessTokens.load(sql, {
    issuer: config.oauth.issuer,
    ttlSeconds: config.oauth.accessTokenTtlSeconds,
  });
  const refreshTokens = new RefreshTokens(sql, config.oauth.refreshTokenTtlSeconds);
  const loginLimiter = new LoginLimiter(sql, config.oauth.loginMaxFailures, config.oauth.loginLockoutSeconds);
  const server = new AuthorizationServer({ sql, config, accessTokens, refreshTokens, loginLimiter });
  return { accessTokens, refreshTokens, server };
}
