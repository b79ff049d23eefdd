import type { Config } from "../../runtime/config.ts";
import { forgetOnChanges } from "../../runtime/control-changes.ts";
import type { Database } from "../../runtime/database.ts";
import type { Logger } from "../../runtime/logger.ts";
import { AccessTokens } from "./access-tokens.ts";
import { ApplicationCache } from "./application-cache.ts";
import { AuthorizationServer } from "./authorization-server.ts";
import { RefreshTokens } from "./refresh-tokens.ts";
import { SignInLimits } from "./sign-in-limits.ts";
import { TaskLinks } from "./task-links.ts";
import { TokenDenylist } from "./token-denylist.ts";

/** The authorization server's parts, built once at start. */
export interface OAuthServices {
  accessTokens: AccessTokens;
  refreshTokens: RefreshTokens;
  /** Spec 001 3.2's secure URLs: links that open one task for a quick user. */
  taskLinks: TaskLinks;
  applications: ApplicationCache;
  server: AuthorizationServer;
}

export async function createOAuthServices(platform: {
  db: Database;
  config: Config;
  log: Logger;
}): Promise<OAuthServices> {
  const { db, config, log } = platform;
  const { sql, changes } = db;
  const denylist = await TokenDenylist.load(sql, changes, log);
  const accessTokens = await AccessTokens.load(sql, {
    issuer: config.oauth.issuer,
    ttlSeconds: config.oauth.accessTokenTtlSeconds,
    denylist,
  });
  const refreshTokens = new RefreshTokens(db, config.oauth.refreshTokenTtlSeconds);
  const signInLimits = new SignInLimits(sql, {
    maxFailures: config.oauth.loginMaxFailures,
    firstLockoutSeconds: config.oauth.loginFirstLockoutSeconds,
    longestLockoutSeconds: config.oauth.loginLockoutSeconds,
    addressMaxFailures: config.oauth.loginAddressMaxFailures,
  });
  const applications = new ApplicationCache(sql);
  await forgetOnChanges(changes, ["application", "configuration"], () => applications.clear());
  const server = new AuthorizationServer({
    sql,
    applications,
    config,
    accessTokens,
    refreshTokens,
    signInLimits,
  });
  return { accessTokens, refreshTokens, taskLinks: new TaskLinks(sql, denylist), applications, server };
}
