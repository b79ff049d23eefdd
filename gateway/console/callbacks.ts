import { z } from "zod";
import { deadCallbacks, replayCallback } from "../../workflow/messenger/callback-admin.ts";
import { pageOf } from "../admin-paging.ts";
import type { GatewayUses } from "../gateway-env.ts";
import { deadCallbacksView } from "./callbacks-views.tsx";
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

const deliveryIdSchema = z.string().regex(/^\d{1,18}$/, "a delivery's id");

/** Messenger callbacks that ended dead, newest first, each replayed with a button, as the admin API does. */
export function callbackPages(app: ConsoleApp, deps: GatewayUses<"db" | "log">) {
  const sql = deps.db.sql;

  consolePage(app, "/callbacks", {
    get: async (c) => {
      const [after = null] = pageKey(c, 1) ?? [];
      const before = after === null ? null : checked(deliveryIdSchema, after, "after");
      const rows = await deadCallbacks(sql, {}, before, CONSOLE_PAGE_SIZE);
      const page = pageOf(
        rows,
        CONSOLE_PAGE_SIZE,
        (row) => [row.id],
        (row) => row,
      );
      return render(
        c,
        deadCallbacksView({
          session: pageSession(c),
          deliveries: page.items,
          next: page.next,
          nextHref: (next) => href("/console/callbacks", { after: next }),
        }),
      );
    },
  });

  consolePage(app, "/callbacks/:id/replay", {
    post: async (c) => {
      const id = checked(deliveryIdSchema, c.req.param("id"), "id");
      await replayCallback(sql, id);
      deps.log.info({ delivery: id }, "callback replayed in the console");
      return redirectWith(c, "/console/callbacks", { kind: "done", text: `Callback ${id} is due again.` });
    },
  });
}
