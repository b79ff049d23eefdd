import type { Context, MiddlewareHandler } from "hono";
import { ErrorCode, localizedError } from "../../contracts/errors.ts";
import { Grant } from "../../contracts/scopes.ts";
import type { AccessClaims } from "../../identity/access-tokens.ts";
import { missingToken, refusedToken } from "../../identity/token-refusals.ts";
import { isTaskLink, type TaskLink } from "../../workflow/task-links.ts";
import type { GatewayEnv, GatewayUses } from "../gateway-env.ts";

/** Spec 001's token column: u/s (either kind), `user` or `sys` only. */
export type TokenKinds = "u/s" | "user" | "sys";

/** Lets an operation be called with a task link (3.2's secure URL) of its data mode that `opens` the request. */
export interface TaskLinkRule {
  test: boolean;
  opens: (c: Context<GatewayEnv>, link: TaskLink) => boolean;
}

function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const [scheme, value] = header.split(" ", 2);
  return scheme?.toLowerCase() === "bearer" && value ? value.trim() : undefined;
}

/**
 * The token check of a workflow operation. `scope` is the plain scope: a user token needs it, a sys
 * token its `sys_` form (a scope that is `sys_` already is needed as it is); `null` for an
 * operation spec 001 gives no scope (push subscriptions), which any token of the right kind passes.
 * Password-grant tokens are refused: spec 001 does not support that grant, although the token
 * endpoint serves spec 000's.
 */
export function workflowToken(
  deps: GatewayUses<"oauth">,
  scope: string | null,
  kinds: TokenKinds,
  taskLinks?: TaskLinkRule,
): MiddlewareHandler<GatewayEnv> {
  const plain = scope?.replace(/^sys_/, "") ?? "";
  return async function workflowToken(c, next) {
    const token = c.req.query("access_token") || bearerToken(c.req.header("authorization"));
    if (!token) throw missingToken();
    let claims: AccessClaims;
    if (isTaskLink(token)) {
      // A link opens its own task only, in the data mode it was made in.
      const link = taskLinks ? await deps.oauth.taskLinks.verify(token, plain) : undefined;
      if (!link || !taskLinks || link.test !== taskLinks.test || !taskLinks.opens(c, link))
        throw refusedToken("task-link");
      claims = link.claims;
    } else {
      const verified = await deps.oauth.accessTokens.verify(token);
      if (typeof verified === "string") throw refusedToken(verified);
      claims = verified;
    }
    if (claims.grant === Grant.Password) {
      throw localizedError(ErrorCode.PermissionDenied, "passwordGrantRefused");
    }
    if (kinds !== "u/s" && claims.kind !== kinds) {
      throw localizedError(ErrorCode.PermissionDenied, kinds === "user" ? "needsUserToken" : "needsSysToken");
    }
    const needed = claims.kind === "sys" ? `sys_${plain}` : plain;
    if (scope !== null && !claims.scopes.includes(needed)) {
      throw localizedError(
        ErrorCode.PermissionDenied,
        "missingScope",
        { scopes: needed },
        { challenge: `Bearer error="insufficient_scope", scope="${needed}"` },
      );
    }
    c.set("token", claims);
    await next();
  };
}
