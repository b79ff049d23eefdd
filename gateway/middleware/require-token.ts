import type { MiddlewareHandler } from "hono";
import { ErrorCode, localizedError, PlatformError } from "../../contracts/errors.ts";
import type { TokenKind } from "../../contracts/scopes.ts";
import type { GatewayEnv } from "../gateway-env.ts";
import type { AccessTokens } from "../oauth/access-tokens.ts";

export interface TokenRule {
  /** Every one of these scopes is needed. */
  scopes: readonly string[];
  /** Only this kind of token; both when omitted (spec 001's "u/s"). */
  kind?: TokenKind;
}

/** Spec 000's error text for a missing, invalid or expired token, kept on every surface. */
const TOKEN_REFUSED = "ACCESS_TOKEN_EXPIRED";

function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const [scheme, value] = header.split(" ", 2);
  return scheme?.toLowerCase() === "bearer" && value ? value.trim() : undefined;
}

/**
 * Lets a request through only with a valid access token (from `access_token` in the query or an
 * `Authorization: Bearer` header) of the right kind and with every scope the route needs.
 */
export function requireToken(accessTokens: AccessTokens, rule: TokenRule): MiddlewareHandler<GatewayEnv> {
  return async function requireToken(c, next) {
    const token = c.req.query("access_token") || bearerToken(c.req.header("authorization"));
    const verified = token ? accessTokens.verify(token) : undefined;
    const claims = verified instanceof Promise ? await verified : verified;
    if (!claims) {
      throw new PlatformError(ErrorCode.Unauthenticated, TOKEN_REFUSED, {
        challenge: token ? 'Bearer error="invalid_token"' : "Bearer",
      });
    }
    if (rule.kind && claims.kind !== rule.kind)
      throw localizedError(
        ErrorCode.PermissionDenied,
        rule.kind === "user" ? "needsUserToken" : "needsSysToken",
      );
    const missing = rule.scopes.filter((scope) => !claims.scopes.includes(scope));
    if (missing.length > 0) {
      throw localizedError(
        ErrorCode.PermissionDenied,
        "missingScope",
        { scopes: missing.join(", ") },
        { challenge: `Bearer error="insufficient_scope", scope="${rule.scopes.join(" ")}"` },
      );
    }
    c.set("token", claims);
    await next();
  };
}
