import type { Config } from "../../runtime/config.ts";
import type { Sql } from "../../runtime/database.ts";
import { AccessTokens } from "./access-tokens.ts";
import { ApplicationCache } from "./application-cache.ts";
import { AuthorizationServer } from "./authorization-server.ts";
import { LoginLimiter } from "./login-limiter.ts";
import { RefreshTokens } from "./refresh-tokens.ts";

/** The authorization server's parts, built once at start. */
export interface OAuthServices {
  accessTokens: AccessTokens;
  refreshTokens: RefreshTokens;
  applications: ApplicationCache;
  server: AuthorizationServer;
}

export async function createOAuthServices(sql: Sql, config: Config): Promise<OAuthServices> {
  const accessTokens = await AccessTokens.load(sql, {
    issuer: config.oauth.issuer,
    ttlSeconds: config.oauth.accessTokenTtlSeconds,
  });
  const refreshTokens = new RefreshTokens(sql, config.oauth.refreshTokenTtlSeconds);
  const loginLimiter = new LoginLimiter(sql, config.oauth.loginMaxFailures, config.oauth.loginLockoutSeconds);
  const applications = new ApplicationCache(sql);
  const server = new AuthorizationServer({
    sql,
    applications,
    config,
    accessTokens,
    refreshTokens,
    loginLimiter,
  });
  return { accessTokens, refreshTokens, applications, server };
}
