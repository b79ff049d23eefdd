import type { AccessClaims } from "../identity/access-tokens.ts";
import type { LiveChannels } from "../notifications/live-channels.ts";
import type { PushWaiters } from "../push/push-waiters.ts";
import type { Platform } from "../runtime/platform.ts";
import type { OAuthServices } from "./oauth/oauth-services.ts";
import type { RequestBindings } from "./request-log.ts";

/**
 * The envelope families of the API surfaces: spec 000's open API (`errno`, `error`, `total`; the
 * signature API among it with its own errno rule) and
 * spec 001's `Response<T>` (with `ecode` and `entities`), which is also the platform's own default.
 */
export type ApiSurface = "open-api" | "signature" | "workflow" | "oauth" | "platform";

/** What the gateway's routes are built with, once at start: the platform's connections and more. */
export interface GatewayDeps extends Platform {
  /** The notification channels as configured now. */
  channels: LiveChannels;
  oauth: OAuthServices;
  /** Set when shutdown begins, so /readyz tells load balancers to stop sending traffic. */
  draining: { value: boolean };
  /** The push subscriptions this gateway holds. */
  push: PushWaiters;
}

/** What each request is bound to (its id among it), and the variables middleware sets on its context. */
export interface GatewayEnv {
  Bindings: RequestBindings;
  Variables: {
    surface: ApiSurface;
    /** The verified access token of a protected route. */
    token: AccessClaims;
  };
}
