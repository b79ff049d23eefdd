import { z } from "zod";
import { ErrorCode, PlatformError } from "../../contracts/errors.ts";
import { setUserEnabled } from "../../identity/access-control.ts";
import { accountList, type UserRecord } from "../../identity/operator-lists.ts";
import { pageOf } from "../admin-paging.ts";
import type { GatewayUses } from "../gateway-env.ts";
import {
  CONSOLE_PAGE_SIZE,
  type ConsoleApp,
  checked,
  consolePage,
  href,
  pageKey,
  pageSession,
  redirectWith,
  render,
} from "./console-page.ts";
import { usersView } from "./users-views.tsx";

const searchSchema = z.object({
  tenant: z.string().min(1).max(253).optional(),
  keyword: z.string().min(1).max(100).optional(),
});
const accountSchema = z.object({
  tenant: z.string().min(1).max(253),
  account: z.string().min(1).max(100),
  keyword: z.string().max(100).optional(),
});

/** A tenant's accounts: found by the start of the account, disabled and enabled with their tokens. */
export function userPages(app: ConsoleApp, deps: GatewayUses<"db" | "log">) {
  const sql = deps.db.sql;

  consolePage(app, "/users", {
    get: async (c) => {
      const { tenant, keyword } = checked(searchSchema, {
        tenant: c.req.query("tenant") || undefined,
        keyword: c.req.query("keyword") || undefined,
      });
      const [after = null] = pageKey(c, 1) ?? [];
      let page: { items: UserRecord[]; next: string | null } = { items: [], next: null };
      if (tenant !== undefined) {
        const rows = await accountList(sql, { tenant, after, limit: CONSOLE_PAGE_SIZE + 1, keyword });
        if (!rows) throw new PlatformError(ErrorCode.NotFound, `No tenant ${tenant}.`);
        page = pageOf(
          rows,
          CONSOLE_PAGE_SIZE,
          (row) => [row.account],
          (row) => row,
        );
      }
      const nextHref = (next: string) => href("/console/users", { tenant, keyword, after: next });
      const view = usersView({
        session: pageSession(c),
        tenant,
        keyword,
        users: page.items,
        next: page.next,
        nextHref,
      });
      return render(c, view);
    },
  });

  for (const [action, enabled] of [
    ["enable", true],
    ["disable", false],
  ] as const) {
    consolePage(app, `/users/${action}`, {
      post: async (c) => {
        const form = c.get("form");
        const { tenant, account, keyword } = checked(accountSchema, {
          tenant: form.get("tenant"),
          account: form.get("account"),
          keyword: form.get("keyword"),
        });
        const id = await setUserEnabled(deps.db, tenant, account, enabled);
        if (!id) throw new PlatformError(ErrorCode.NotFound, `No account ${account} in ${tenant}.`);
        deps.log.info({ user: id, enabled }, "account access changed in the console");
        const text = enabled
          ? `${account} is enabled: it may sign in again.`
          : `${account} is disabled: it cannot sign in, and its tokens are refused.`;
        return redirectWith(c, href("/console/users", { tenant, keyword }), { kind: "done", text });
      },
    });
  }
}
