import type { MiddlewareHandler } from "hono";
import { ErrorCode, PlatformError } from "../../contracts/errors.ts";
import { bearsToken } from "../../runtime/secrets.ts";
import type { GatewayEnv } from "../gateway-env.ts";

/**
 * An operator's token, `Authorization: Bearer <token>`, compared in constant time: the admin API's
 * (`realm` "admin") or the metrics scraper's ("metrics").
 */
export function requireOperatorToken(token: string, realm: string): MiddlewareHandler<GatewayEnv> {
  return async function requireOperatorToken(c, next) {
    if (!bearsToken(c.req.header("authorization"), token)) {
      throw new PlatformError(ErrorCode.Unauthenticated, `the ${realm} API needs its operator token`, {
        challenge: `Bearer realm="${realm}"`,
      });
    }
    await next();
  };
}
