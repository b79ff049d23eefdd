import type postgres from "postgres";
import type { RecordingServer } from "./recording-server.ts";
import { waitFor } from "./wait.ts";

/**
 * A bootstrap with one application that may send on the `app` channel, delivered to `appUrl`;
 * `channel` adds settings to the channel's entry (`maxInFlight`, say).
 */
export function appChannelBootstrap(
  application: { id: string; secret: string; name: string },
  appUrl: string,
  channel: { maxInFlight?: number } = {},
) {
  return {
    applications: [{ ...application, scopes: ["send_app_notification", "notifications"] }],
    channels: [
      {
        name: "app",
        plugin: "app",
        config: { baseUrl: appUrl, token: "t" },
        permittedApplications: [application.id],
        ...channel,
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

/** The idempotency keys the campus-app stand-in received more than once. */
export function repeatedKeys(app: RecordingServer): string[] {
  const seen = new Map<string, number>();
  for (const key of idempotencyKeys(app)) seen.set(key, (seen.get(key) ?? 0) + 1);
  return [...seen].filter(([, times]) => times > 1).map(([key]) => key);
}
