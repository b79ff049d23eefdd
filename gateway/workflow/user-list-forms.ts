import { z } from "@hono/zod-openapi";
import type { TokenKinds } from "./workflow-access.ts";

const userParam = z.object({ userId: z.string().min(1).max(360) });

/**
 * One of the two forms of a list about one user: the user's own under `/me` (user tokens, the plain
 * scope), or the sys form under `/user/{userId}` for any user of the application's tenant, by
 * account or id (sys tokens, the scope's `sys_` form).
 */
export interface UserListForm {
  /** The path's start: `/me` or `/user/{userId}`. */
  at: string;
  /** Added to the summary's number: what the sys form names. */
  label: string;
  /** Put in the operation's id: `My` or `User`. */
  whose: "My" | "User";
  /** The operation's scope, token kind and path parameter for a plain scope. */
  tokenFor(scope: string): { scope: string; kinds: TokenKinds; params?: typeof userParam };
  /** The user the sys form's path names; undefined for `/me`, whose user is the token's. */
  named(input: { params: object }): string | undefined;
}

export const USER_LIST_FORMS: readonly UserListForm[] = [
  {
    at: "/me",
    label: "",
    whose: "My",
    tokenFor: (scope) => ({ scope, kinds: "user" }),
    named: () => undefined,
  },
  {
    at: "/user/{userId}",
    label: " (sys form: a user of the tenant, by account or id)",
    whose: "User",
    tokenFor: (scope) => ({ scope: `sys_${scope}`, kinds: "sys", params: userParam }),
    named: (input) => (input.params as { userId: string }).userId,
  },
];
