import type { MiddlewareHandler } from "hono";
import type { Logger } from "../../runtime/logger.ts";
import type { GatewayEnv } from "../gateway-env.ts";

/**
 * One log line per request: method, path (never the query string, which may carry an access
 * token), status, duration and request id.
 */
export function requestLog(log: Logger): MiddlewareHandler<GatewayEnv> {
  return async function requestLog(c, next) {
    const started = performance.now();
    await next();
    log.info(
      {
        requestId: c.get("requestId"),
        method: c.req.method,
        path: c.req.path,
        status: c.res.status,
        ms: Math.round((performance.now() - started) * 10) / 10,
      },
      "request",
    );
  };
}
