import type { Context, MiddlewareHandler, Next } from "hono";
import { ErrorCode, localizedError } from "../../contracts/errors.ts";
import type { TokenKind } from "../../contracts/scopes.ts";
import type { AccessClaims, AccessTokens } from "../../identity/access-tokens.ts";
import { missingToken, refusedToken, type TokenRefusal } from "../../identity/token-refusals.ts";
import { isTaskLink } from "../../workflow/task-links.ts";
import type { GatewayEnv } from "../gateway-env.ts";

export interface TokenRule {
  /** Every one of these scopes is needed. */
  scopes: readonly string[];
  /** Only this kind of token; both when omitted (spec 001's "u/s"). */
  kind?: TokenKind;
}

function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const [scheme, value] = header.split(" ", 2);
  return scheme?.toLowerCase() === "bearer" && value ? value.trim() : undefined;
}

/**
 * Lets a request through only with a valid access token (from `access_token` in the query or an
 * `Authorization: Bearer` header) of the right kind and with every scope the route needs; a refused
 * token answers 401 saying why. A token verified before is checked without a promise or an async
 * frame of its own: most requests carry one.
 */
export function requireToken(accessTokens: AccessTokens, rule: TokenRule): MiddlewareHandler<GatewayEnv> {
  const admit = (
    c: Context<GatewayEnv>,
    next: Next,
    token: string | undefined,
    claims: AccessClaims | TokenRefusal | undefined,
  ) => {
    if (token === undefined || claims === undefined) throw missingToken();
    // A task link opens its task's operations only, none of these.
    if (typeof claims === "string")
      throw refusedToken(claims === "malformed" && isTaskLink(token) ? "task-link" : claims);
    if (rule.kind && claims.kind !== rule.kind)
      throw localizedError(
        ErrorCode.PermissionDenied,
        rule.kind === "user" ? "needsUserToken" : "needsSysToken",
      );
    for (const scope of rule.scopes) {
      if (!claims.scopes.includes(scope)) refuseScopes(rule, claims);
    }
    c.set("token", claims);
    return next();
  };
  return function requireToken(c, next) {
    const token = c.req.query("access_token") || bearerToken(c.req.header("authorization"));
    const verified = token ? accessTokens.verify(token) : undefined;
    if (verified instanceof Promise) return verified.then((claims) => admit(c, next, token, claims));
    return admit(c, next, token, verified);
  };
}

function refuseScopes(rule: TokenRule, claims: AccessClaims): never {
  const missing = rule.scopes.filter((scope) => !claims.scopes.includes(scope));
  throw localizedError(
    ErrorCode.PermissionDenied,
    "missingScope",
    { scopes: missing.join(", ") },
    { challenge: `Bearer error="insufficient_scope", scope="${rule.scopes.join(" ")}"` },
  );
}
