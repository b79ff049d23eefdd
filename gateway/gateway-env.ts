import type { AccessClaims } from "../identity/access-tokens.ts";
import type { Platform } from "../runtime/platform.ts";
import type { GatewayServices } from "./gateway-services.ts";
import type { RequestBindings } from "./request-log.ts";

/**
 * The envelope families of the API surfaces: spec 000's open API (`errno`, `error`, `total`; the
 * signature API among it with its own errno rule) and
 * spec 001's `Response<T>` (with `ecode` and `entities`), which is also the platform's own default.
 */
export type ApiSurface = "open-api" | "signature" | "workflow" | "oauth" | "platform";

/**
 * Everything the gateway is built with, once at start: the platform's connections and the
 * services. A route factory takes only the part it uses (`GatewayUses<...>`), which says what it
 * depends on and lets it be made with nothing else.
 */
export interface GatewayDeps extends Platform, GatewayServices {
  /** Set when shutdown begins, so /readyz tells load balancers to stop sending traffic. */
  draining: { value: boolean };
}

/** The part of the gateway's dependencies a route factory uses. */
export type GatewayUses<Key extends keyof GatewayDeps> = Pick<GatewayDeps, Key>;

/** What each request is bound to (its id among it), and the variables middleware sets on its context. */
export interface GatewayEnv {
  Bindings: RequestBindings;
  Variables: {
    surface: ApiSurface;
    /** The verified access token of a protected route. */
    token: AccessClaims;
  };
}
