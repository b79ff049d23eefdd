import { z } from "zod";
import { granteeListSchema } from "../../contracts/bootstrap.ts";
import { setAppStarters, tenantAccessLists } from "../../workflow/app-starters.ts";
import { setAdministratorsOfDomain } from "../../workflow/tenant-administrators.ts";
import type { GatewayUses } from "../gateway-env.ts";
import { accessView } from "./access-views.tsx";
import {
  type ConsoleApp,
  type ConsoleContext,
  checked,
  consolePage,
  href,
  pageSession,
  redirectWith,
  render,
  tenantSchema,
} from "./console-page.ts";

/** A form's list: names separated by commas or white space. */
const words = (text: string | null | undefined) => (text ?? "").split(/[\s,]+/).filter(Boolean);

function listOf(c: ConsoleContext) {
  const form = c.get("form");
  return checked(granteeListSchema, {
    accounts: words(form.get("accounts")),
    positions: words(form.get("positions")),
  });
}

/**
 * Who may do what in a tenant, as the operator names it: its administrators (they grant access to
 * positions with their own tokens) and each workflow app's starters (none: everyone starts it).
 */
export function accessPages(app: ConsoleApp, deps: GatewayUses<"db" | "log">) {
  const sql = deps.db.sql;

  consolePage(app, "/access", {
    get: async (c) => {
      const tenant = c.req.query("tenant")
        ? checked(tenantSchema, c.req.query("tenant"), "tenant")
        : undefined;
      const lists = tenant === undefined ? undefined : await tenantAccessLists(sql, tenant);
      return render(c, accessView({ session: pageSession(c), tenant, lists }));
    },
  });

  consolePage(app, "/access/administrators", {
    post: async (c) => {
      const tenant = checked(tenantSchema, c.get("form").get("tenant"), "tenant");
      await setAdministratorsOfDomain(sql, tenant, listOf(c));
      deps.log.info({ tenant }, "tenant administrators changed in the console");
      return redirectWith(c, href("/console/access", { tenant }), {
        kind: "done",
        text: `The administrators of ${tenant} are saved.`,
      });
    },
  });

  consolePage(app, "/access/starters", {
    post: async (c) => {
      const form = c.get("form");
      const tenant = checked(tenantSchema, form.get("tenant"), "tenant");
      const code = checked(z.string().min(1).max(64), form.get("code"), "code");
      await setAppStarters(deps.db, tenant, code, listOf(c));
      deps.log.info({ tenant, app: code }, "app starters changed in the console");
      return redirectWith(c, href("/console/access", { tenant }), {
        kind: "done",
        text: `The starters of ${code} are saved.`,
      });
    },
  });
}
