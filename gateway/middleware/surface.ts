import type { MiddlewareHandler } from "hono";
import type { ApiSurface } from "../error-envelope.ts";
import type { GatewayEnv } from "../gateway-env.ts";

/** Marks the routes below it as one API surface, so errors there take that surface's envelope. */
export function surface(name: ApiSurface): MiddlewareHandler<GatewayEnv> {
  return async function setSurface(c, next) {
    c.set("surface", name);
    await next();
  };
}
