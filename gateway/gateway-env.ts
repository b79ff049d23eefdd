import type { Platform } from "../runtime/platform.ts";
import type { ApiSurface } from "./error-envelope.ts";
import type { AccessClaims } from "./oauth/access-tokens.ts";
import type { OAuthServices } from "./oauth/oauth-services.ts";

/** What the gateway's routes are built with, once at start: the platform's connections and more. */
export interface GatewayDeps extends Platform {
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
