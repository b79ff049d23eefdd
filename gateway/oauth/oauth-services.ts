import { AccessTokens } from "../../identity/access-tokens.ts";
import { ApplicationCache } from "../../identity/application-cache.ts";
import { AuthorizationServer } from "../../identity/authorization-server.ts";
import { RefreshTokens } from "../../identity/refresh-tokens.ts";
import { SignInLimits } from "../../identity/sign-in-limits.ts";
import { TokenDenylist } from "../../identity/token-denylist.ts";
import type { Config } from "../../runtime/config.ts";
import { forgetOnChanges } from "../../runtime/control-changes.ts";
import type { Database } from "../../runtime/database.ts";
import type { Logger } from "../../runtime/logger.ts";
import { TaskLinks } from "../../workflow/task-links.ts";

/** The authorization server's parts, built once at start. */
export interface OAuthServices {
  accessTokens: AccessTokens;
  refreshTokens: RefreshTokens;
  /** Spec 001 3.2's secure URLs: links that open one task for a quick user. */
  taskLinks: TaskLinks;
  applications: ApplicationCache;
  server: AuthorizationServer;
}

/** The authorization server's parts, having read what they keep (the denylist, the signing keys). */
export async function createOAuthServices(platform: {
  db: Database;
  config: Config;
  log: Logger;
}): Promise<OAuthServices> {
  const { services, read } = unreadOAuthServices(platform);
  await read();
  return services;
}

/**
 * The authorization server's parts, made without a query, for routes made while the database
 * starts; `read` reads what they keep, and must finish before they serve.
 */
export function unreadOAuthServices(platform: { db: Database; config: Config; log: Logger }): {
  services: OAuthServices;
  read(): Promise<void>;
} {
  const { db, config, log } = platform;
  const { sql, changes } = db;
  const denylist = new TokenDenylist(sql, log);
  const accessTokens = AccessTokens.unread(sql, {
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
  const server = new AuthorizationServer({
    sql,
    applications,
    config,
    accessTokens,
    refreshTokens,
    signInLimits,
  });
  return {
    services: { accessTokens, refreshTokens, taskLinks: new TaskLinks(sql, denylist), applications, server },
    async read() {
      // Together: their statements go out one behind the other on the same connection.
      await Promise.all([
        denylist.read(changes),
        accessTokens.read(),
        forgetOnChanges(changes, ["application", "configuration"], () => applications.clear()),
      ]);
    },
  };
}
