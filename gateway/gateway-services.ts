import type { DownloadDeps } from "../files/download-access.ts";
import { FileTokenGuard } from "../files/file-token-guard.ts";
import type { LiveChannels } from "../notifications/live-channels.ts";
import { configuredPushWaiters, type PushWaiters } from "../push/push-waiters.ts";
import type { Platform } from "../runtime/platform.ts";
import { SealCache } from "../seals/seal-cache.ts";
import { StartableApps } from "../workflow/startable-apps.ts";
import { StatisticsCache } from "../workflow/statistics/statistics-cache.ts";
import { WorkflowTenants } from "../workflow/workflow-tenants.ts";
import { type OAuthServices, unreadOAuthServices } from "./oauth/oauth-services.ts";

/**
 * The capabilities' services that hold something between requests (a cache, a counter, keys),
 * made once by the process that serves HTTP and shared by every route that calls them.
 */
export interface GatewayServices {
  oauth: OAuthServices;
  /** The notification channels as configured now. */
  channels: LiveChannels;
  seals: SealCache;
  /** The tenant a call acts on (by the token or its `domain`), and the accounts sys tokens name, each remembered briefly. */
  workflowTenants: WorkflowTenants;
  /** The apps a start names, remembered until a change of the tenant's apps is announced. */
  startableApps: StartableApps;
  /** What the file service's download checks need; one guard counts wrong file tokens. */
  downloads: DownloadDeps;
  /** The push subscriptions this gateway holds (started and stopped by the process). */
  push: PushWaiters;
  /** The statistics' answers of the last 2 minutes (spec 001 8.x). */
  statistics: StatisticsCache;
}

/**
 * The gateway's services, made without a query so routes can be made while the database starts;
 * `read` reads what they keep, and must finish before they serve. The channels are the process's
 * own (its workers read them too), read by the process.
 */
export function unreadGatewayServices(
  platform: Platform,
  channels: LiveChannels,
): { services: GatewayServices; read(): Promise<void> } {
  const { db, config, broker, log } = platform;
  const oauth = unreadOAuthServices(platform);
  const { files } = config;
  return {
    services: {
      oauth: oauth.services,
      channels,
      seals: new SealCache(db.sql),
      workflowTenants: new WorkflowTenants(db.sql, db.changes),
      startableApps: new StartableApps(db.sql, db.changes),
      downloads: {
        sql: db.sql,
        accessTokens: oauth.services.accessTokens,
        guard: new FileTokenGuard(db.sql, files.tokenMaxFailures, files.tokenLockoutSeconds),
      },
      push: configuredPushWaiters(db.sql, broker, log, config.push),
      statistics: new StatisticsCache(),
    },
    read: oauth.read,
  };
}

/** The gateway's services having read what they keep: for a gateway made apart from a process. */
export async function createGatewayServices(
  platform: Platform,
  channels: LiveChannels,
): Promise<GatewayServices> {
  const { services, read } = unreadGatewayServices(platform, channels);
  await read();
  return services;
}
