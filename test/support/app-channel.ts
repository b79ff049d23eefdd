import type postgres from "postgres";
import type { RecordingServer } from "./recording-server.ts";
import { waitFor } from "./wait.ts";

/** A bootstrap with one application that may send on the `app` channel, delivered to `appUrl`. */
export function appChannelBootstrap(
  application: { id: string; secret: string; name: string },
  appUrl: string,
) {
  return {
    applications: [{ ...application, scopes: ["send_app_notification", "notifications"] }],
    channels: [
      {
        name: "app",
        plugin: "app",
        config: { baseUrl: appUrl, token: "t" },
        permittedApplications: [application.id],
      },
    ],
  };
}

/** Waits until no delivery task of the platform's database is anything but `sent`. */
export function waitUntilAllSent(sql: postgres.Sql, timeoutMs: number, what: string): Promise<void> {
  return waitFor(
    async () => {
      const [row] = await sql<{ open: number }[]>`
        select count(*)::int as open from delivery_tasks where sending_status <> 'sent'`;
      return row!.open === 0;
    },
    timeoutMs,
    what,
  );
}

/** The idempotency keys (task ids) of every message the campus-app stand-in received, repeats included. */
export function idempotencyKeys(app: RecordingServer): string[] {
  return app.requests.map((request) => String(request.headers["idempotency-key"]));
}
