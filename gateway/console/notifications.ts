import { z } from "zod";
import { notificationWithTasks } from "../../notifications/notification-status.ts";
import type { GatewayUses } from "../gateway-env.ts";
import { type ConsoleApp, checked, consolePage, pageSession, render } from "./console-page.ts";
import { notificationView } from "./notifications-views.tsx";

const idSchema = z.uuid("a notification id is a GUID").optional();

/** A notification's delivery tasks, by its id. */
export function notificationPages(app: ConsoleApp, deps: GatewayUses<"db">) {
  const sql = deps.db.sql;
  consolePage(app, "/notifications", {
    get: async (c) => {
      const id = checked(idSchema, c.req.query("id")?.trim() || undefined, "id")?.toLowerCase();
      const notification = id === undefined ? undefined : await notificationWithTasks(sql, id);
      const tasks = notification?.tasks ?? [];
      return render(c, notificationView({ session: pageSession(c), id, notification, tasks }));
    },
  });
}
