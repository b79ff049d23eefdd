import { ErrorCode, PlatformError } from "../../contracts/errors.ts";
import { feedWithRuns, runFeedNow, tenantFeed } from "../../directory/feeds.ts";
import type { GatewayUses } from "../gateway-env.ts";
import {
  type ConsoleApp,
  checked,
  consolePage,
  href,
  pageSession,
  redirectWith,
  render,
  tenantSchema,
} from "./console-page.ts";
import { feedView } from "./feeds-views.tsx";

/** Runs a feed's page shows, newest first. */
const RUNS_SHOWN = 20;

/** A tenant's enterprise feed: its settings and latest runs, and a run queued now as the admin API queues one. */
export function feedPages(app: ConsoleApp, deps: GatewayUses<"db" | "jobs" | "log">) {
  const sql = deps.db.sql;

  async function feedOf(domain: string) {
    const found = await tenantFeed(sql, domain);
    if (!found) throw new PlatformError(ErrorCode.NotFound, `No tenant ${domain}.`);
    return found.feed;
  }

  consolePage(app, "/feeds", {
    get: async (c) => {
      const tenant = c.req.query("tenant")
        ? checked(tenantSchema, c.req.query("tenant"), "tenant")
        : undefined;
      const feed = tenant === undefined ? undefined : await feedOf(tenant);
      const runs = feed ? (await feedWithRuns(sql, feed, RUNS_SHOWN)).runs : [];
      return render(c, feedView({ session: pageSession(c), tenant, feed, runs }));
    },
  });

  consolePage(app, "/feeds/run", {
    post: async (c) => {
      const tenant = checked(tenantSchema, c.get("form").get("tenant"), "tenant");
      const feed = await feedOf(tenant);
      if (!feed) throw new PlatformError(ErrorCode.NotFound, `${tenant} has no enterprise feed.`);
      // As on the admin API: asked again, the waiting run's job is sent again.
      const run = await runFeedNow({ sql, jobs: deps.jobs }, feed);
      if (!run) throw new PlatformError(ErrorCode.Conflict, `The feed of ${tenant} is disabled.`);
      deps.log.info({ tenant, run: run.id }, "feed run queued in the console");
      return redirectWith(c, href("/console/feeds", { tenant }), {
        kind: "done",
        text: `A run of the feed of ${tenant} is queued.`,
      });
    },
  });
}
