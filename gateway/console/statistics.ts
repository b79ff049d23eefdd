import { z } from "zod";
import { statisticsOfTenant, tenantDays } from "../../workflow/statistics/statistics-admin.ts";
import type { GatewayUses } from "../gateway-env.ts";
import { type ConsoleApp, checked, consolePage, pageSession, render } from "./console-page.ts";
import { statisticsView } from "./statistics-views.tsx";

const domainSchema = z.string().min(1).max(253);

/** A tenant's statistics: whether they are kept, the counting of its history, 8.3 by day drawn. */
export function statisticsPages(app: ConsoleApp, deps: GatewayUses<"db">) {
  const sql = deps.db.sql;
  consolePage(app, "/tenants/statistics", {
    get: async (c) => {
      const domain = checked(domainSchema, c.req.query("domain"), "domain");
      const test = c.req.query("test") === "1";
      const [{ history }, chart] = await Promise.all([
        statisticsOfTenant(sql, domain),
        tenantDays(sql, domain, test, new Date()),
      ]);
      return render(c, statisticsView({ session: pageSession(c), domain, test, history, ...chart }));
    },
  });
}
