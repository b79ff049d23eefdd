import type { Bootstrap } from "../contracts/bootstrap.ts";
import type { Broker } from "../contracts/broker.ts";
import type { Config } from "../runtime/config.ts";
import type { Database } from "../runtime/database.ts";
import type { Logger } from "../runtime/logger.ts";
import type { FileStorage } from "../runtime/storage/file-storage.ts";
import type { ApiSurface } from "./error-envelope.ts";
import type { AccessClaims } from "./oauth/access-tokens.ts";
import type { OAuthServices } from "./oauth/oauth-services.ts";

/** What the gateway's routes are built with, once at start. */
export interface GatewayDeps {
  config: Config;
  /** The bootstrap file as read at start (channel names and operators come from it). */
  bootstrap: Bootstrap | undefined;
  log: Logger;
  db: Database;
  broker: Broker;
  storage: FileStorage;
  oauth: OAuthServices;
  /** Set when shutdown begins, so /readyz tells load balancers to stop sending traffic. */
  draining: { value: boolean };
}

/** Variables middleware sets on the request context. */
export interface GatewayEnv {
  Variables: {
    requestId: string;
    surface: ApiSurface;
    /** The verified access token of a protected route. */
    token: AccessClaims;
  };
}
