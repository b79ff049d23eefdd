import type { OpenAPIHono, RouteConfig } from "@hono/zod-openapi";
import type { GatewayEnv } from "./gateway-env.ts";

/**
 * For an operation that reads its own parameters (spec 001's come from the query or any kind of
 * body, a body's value winning, and are reported in the caller's language): the whole of `route`
 * goes into /openapi.json, and the route returned, for `app.openapi`, has the framework validate
 * only its path parameters, so what the handler answers stays its own.
 */
export function pathValidatedRoute<R extends RouteConfig>(
  app: OpenAPIHono<GatewayEnv>,
  route: R,
): Omit<R, "request"> & { hide: true; request: Pick<NonNullable<R["request"]>, "params"> } {
  const { middleware: _middleware, hide: _hide, ...documented } = route;
  app.openAPIRegistry.registerPath(documented);
  return { ...route, hide: true, request: { params: route.request?.params } };
}
