import type { Context, MiddlewareHandler } from "hono";
import { matchedRoutes } from "hono/route";
import type { ApiSurface, GatewayEnv } from "../gateway-env.ts";

const declared = new WeakMap<object, ApiSurface>();

/** Marks the routes below it as one API surface, so errors there take that surface's envelope. */
export function surface(name: ApiSurface): MiddlewareHandler<GatewayEnv> {
  const setSurface: MiddlewareHandler<GatewayEnv> = async function setSurface(c, next) {
    c.set("surface", name);
    await next();
  };
  declared.set(setSurface, name);
  return setSurface;
}

/**
 * The surface the request's routes declare, read from the matched handlers rather than from what
 * has run: a failure before the surface middleware (the body limit) still answers in its envelope.
 */
export function declaredSurface(c: Context<GatewayEnv>): ApiSurface | undefined {
  for (const route of matchedRoutes(c)) {
    const name = declared.get(route.handler);
    if (name) return name;
  }
  return undefined;
}
