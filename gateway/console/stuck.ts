import { z } from "zod";
import { stuckTodos } from "../../workflow/process-oversight.ts";
import { pageOf } from "../admin-paging.ts";
import type { GatewayUses } from "../gateway-env.ts";
import {
  CONSOLE_PAGE_SIZE,
  type ConsoleApp,
  checked,
  consolePage,
  pageKey,
  pageSession,
  render,
  tenantSchema,
} from "./console-page.ts";
import { type StuckFields, stuckView } from "./stuck-views.tsx";

/** How long a to-do waits before the list shows it, unless the page asks otherwise. */
const DEFAULT_DAYS = 3;

const stuckSchema = z.object({
  tenant: tenantSchema.optional(),
  kind: z.enum(["stale", "unhandled"]).default("stale"),
  days: z.coerce.number().min(0).max(3650).default(DEFAULT_DAYS),
});
const keySchema = z.tuple([z.iso.datetime(), z.uuid()]);

/** The stuck list: to-dos waiting past a threshold, or that nobody can handle, oldest first. */
export function stuckPages(app: ConsoleApp, deps: GatewayUses<"db">) {
  const sql = deps.db.sql;
  consolePage(app, "/workflows/stuck", {
    get: async (c) => {
      const query = (name: string) => c.req.query(name) || undefined;
      const asked = checked(stuckSchema, {
        tenant: query("tenant"),
        kind: query("kind"),
        days: query("days"),
      });
      const fields: StuckFields = { ...asked, tenant: asked.tenant, test: query("test") === "1" };
      const session = pageSession(c);
      if (asked.tenant === undefined)
        return render(c, stuckView({ session, fields, tasks: undefined, next: null }));
      const key = pageKey(c, 2);
      const after = key && checked(keySchema, key, "after");
      const rows = await stuckTodos(
        sql,
        {
          domain: asked.tenant,
          test: fields.test,
          kind: asked.kind,
          olderThanDays: asked.days,
          now: new Date(),
        },
        after && { assignedAt: new Date(after[0]), taskId: after[1] },
        CONSOLE_PAGE_SIZE,
      );
      const page = pageOf(
        rows,
        CONSOLE_PAGE_SIZE,
        (row) => [row.assignedAt.toISOString(), row.taskId],
        (row) => row,
      );
      return render(c, stuckView({ session, fields, tasks: page.items, next: page.next }));
    },
  });
}
