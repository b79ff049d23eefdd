import { readFileSync } from "node:fs";
import { Hono, type MiddlewareHandler } from "hono";
import { asPlatformError, errorMapping } from "../error-envelope.ts";
import type { GatewayUses } from "../gateway-env.ts";
import { accessPages } from "./access.ts";
import { applicationPages } from "./applications.ts";
import { callbackPages } from "./callbacks.ts";
import { channelPages } from "./channels.ts";
import { type ConsoleEnv, consolePage, errorPage, pageSession, render } from "./console-page.ts";
import { dashboardView } from "./dashboard-views.tsx";
import { diagramAssets } from "./diagram-assets.ts";
import { feedPages } from "./feeds.ts";
import { notificationPages } from "./notifications.ts";
import { processPages } from "./processes.ts";
import { queuePages } from "./queues.ts";
import { SEAL_UPLOAD_PATH, sealPages } from "./seals.ts";
import { ConsoleSessions } from "./sessions.ts";
import { requireSession, signInRoutes } from "./sign-in.ts";
import { statisticsPages } from "./statistics.ts";
import { stuckPages } from "./stuck.ts";
import { tenantDataPages } from "./tenant-data.ts";
import { userPages } from "./users.ts";
import { WORKFLOW_UPLOAD_PATH, workflowPages } from "./workflows.ts";

const STYLESHEET = readFileSync(new URL("./console.css", import.meta.url), "utf8");

/**
 * Every console answer: never cached, never framed, no script at all (the pages are plain forms)
 * but the console's own on the pages that draw a diagram, styles and images from the console only,
 * forms posted back to it only.
 */
const SECURITY_HEADERS: Record<string, string> = {
  "Cache-Control": "no-store",
  "X-Frame-Options": "DENY",
  "Content-Security-Policy":
    "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "no-referrer",
};
const WITH_SCRIPTS = `${SECURITY_HEADERS["Content-Security-Policy"]}; script-src 'self'`;

const securityHeaders: MiddlewareHandler<ConsoleEnv> = async function securityHeaders(c, next) {
  await next();
  // An answer that says how it is kept keeps that (the console's own script and styles, see
  // diagram-assets.ts); pages say nothing, and are never kept.
  const keeping = c.res.headers.has("cache-control");
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) {
    if (name !== "Cache-Control" || !keeping) c.res.headers.set(name, value);
  }
  if (c.get("scripts")) c.res.headers.set("Content-Security-Policy", WITH_SCRIPTS);
};

/**
 * The operator console, server-rendered HTML over the same store functions and operations as the
 * admin API: tenants (with their tags, memberships and settings), applications, users, access (tenant administrators, app starters), seals, channels, feeds, queues, dead callbacks,
 * notifications and workflows (apps and versions, diagrams, processes, stuck to-dos).
 */
export function consoleRoutes(
  deps: GatewayUses<"broker" | "config" | "db" | "jobs" | "log" | "seals">,
  adminToken: string,
) {
  const app = new Hono<ConsoleEnv>();
  const sessions = new ConsoleSessions();

  app.onError((error, c) => {
    const platformError = asPlatformError(error);
    const { status } = errorMapping(platformError.code);
    if (status >= 500 && status !== 503) {
      deps.log.error({ requestId: c.env.requestId, path: c.req.path, err: error }, "console request failed");
      return errorPage(c, status, `Something failed on our side (request ${c.env.requestId}).`);
    }
    return errorPage(c, status, platformError.message);
  });

  app.use(securityHeaders);
  app.use(requireSession(sessions, new Set([SEAL_UPLOAD_PATH, WORKFLOW_UPLOAD_PATH])));
  consolePage(app, "/style.css", {
    get: (c) => c.body(STYLESHEET, 200, { "content-type": "text/css; charset=utf-8" }),
  });
  signInRoutes(app, deps, sessions, adminToken);

  consolePage(app, "/", {
    get: async (c) => {
      const queues = await deps.broker.queueStats().catch(() => undefined);
      const view = dashboardView({ session: pageSession(c), queues, broker: deps.broker.kind });
      return render(c, view);
    },
  });
  applicationPages(app, deps);
  userPages(app, deps);
  tenantDataPages(app, deps);
  statisticsPages(app, deps);
  accessPages(app, deps);
  sealPages(app, deps);
  channelPages(app, deps);
  feedPages(app, deps);
  queuePages(app, deps);
  callbackPages(app, deps);
  notificationPages(app, deps);
  diagramAssets(app);
  workflowPages(app, deps);
  processPages(app, deps);
  stuckPages(app, deps);

  app.all("*", async (c) => {
    if (c.req.path === "/console/") return c.redirect("/console", 301);
    return await errorPage(c, 404, `There is no console page ${c.req.path}.`);
  });
  return app;
}
