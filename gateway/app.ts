import { OpenAPIHono } from "@hono/zod-openapi";
import type { Context, Env, Hono } from "hono";
import { ErrorCode, localizedError, PlatformError } from "../contracts/errors.ts";
import { issueField, type ValidationIssue } from "../contracts/validation-issue.ts";
import { WorkflowRefusal } from "../contracts/workflow-errors.ts";
import type { WorkflowDeps } from "../workflow/workflow-deps.ts";
import { consoleRoutes } from "./console/console-routes.ts";
import { asPlatformError, errorMapping, errorResponse } from "./error-envelope.ts";
import type { GatewayDeps, GatewayEnv } from "./gateway-env.ts";
import { limitBody } from "./middleware/body-limit.ts";
import { requireOperatorToken } from "./middleware/require-operator-token.ts";
import { requireStorableText } from "./middleware/storable-text.ts";
import { surface } from "./middleware/surface.ts";
import { PrefixRouter } from "./prefix-router.ts";
import { type MatchedRoute, RouteRecorder, withRequestLog } from "./request-log.ts";
import { accessAdminRoutes } from "./routes/access-admin-routes.ts";
import { accessRoutes } from "./routes/access-routes.ts";
import { adminReadRoutes } from "./routes/admin-read-routes.ts";
import { adminRoutes } from "./routes/admin-routes.ts";
import { authorizeRoutes } from "./routes/authorize-routes.ts";
import { bootstrapExportRoutes } from "./routes/bootstrap-export-routes.ts";
import { callbackAdminRoutes } from "./routes/callback-admin-routes.ts";
import { channelAdminRoutes } from "./routes/channel-admin-routes.ts";
import { codeRoutes } from "./routes/code-routes.ts";
import { docsRoutes } from "./routes/docs-routes.ts";
import { enterpriseRoutes } from "./routes/enterprise-routes.ts";
import { entrustRoutes } from "./routes/entrust-routes.ts";
import { exportRoutes } from "./routes/export-routes.ts";
import { feedAdminRoutes } from "./routes/feed-admin-routes.ts";
import { fileRoutes } from "./routes/file-routes.ts";
import { healthRoutes } from "./routes/health-routes.ts";
import { landingRoutes } from "./routes/landing-routes.ts";
import { metricsRoutes } from "./routes/metrics-routes.ts";
import { notificationRoutes } from "./routes/notification-routes.ts";
import { oauthMetadataRoutes, oauthRoutes } from "./routes/oauth-routes.ts";
import { openApiDocumentRoute } from "./routes/openapi-document-route.ts";
import { outboxAdminRoutes } from "./routes/outbox-admin-routes.ts";
import { positionRoutes } from "./routes/position-routes.ts";
import { pushMessageRoutes } from "./routes/push-message-routes.ts";
import { pushSubscriptionRoutes } from "./routes/push-subscription-routes.ts";
import { queueAdminRoutes } from "./routes/queue-admin-routes.ts";
import { sealAdminRoutes } from "./routes/seal-admin-routes.ts";
import { signatureRoutes } from "./routes/signature-routes.ts";
import { tenantAdminRoutes } from "./routes/tenant-admin-routes.ts";
import { tenantAdministratorRoutes } from "./routes/tenant-administrator-routes.ts";
import { tenantStatisticsRoutes } from "./routes/tenant-statistics-routes.ts";
import { thingRoutes } from "./routes/thing-routes.ts";
import { tripleRoutes } from "./routes/triple-routes.ts";
import { userRoutes } from "./routes/user-routes.ts";
import { workflowAdminReadRoutes } from "./routes/workflow-admin-read-routes.ts";
import { workflowAdminRoutes } from "./routes/workflow-admin-routes.ts";
import { workflowAppRoutes } from "./routes/workflow-app-routes.ts";
import { workflowDataRoutes } from "./routes/workflow-data-routes.ts";
import { workflowInboxRoutes } from "./routes/workflow-inbox-routes.ts";
import { workflowListRoutes } from "./routes/workflow-list-routes.ts";
import { workflowProcessRoutes } from "./routes/workflow-process-routes.ts";
import { workflowStatsRoutes } from "./routes/workflow-stats-routes.ts";
import { workflowTaskRoutes } from "./routes/workflow-task-routes.ts";
import { WORKFLOW_DATA_MODES, type WorkflowDataMode } from "./workflow/data-mode.ts";
import { tripleFormOf } from "./workflow/old-path-form.ts";

/** A request that breaks its route's schema: the message names the field and the rule. */
function validationError(issues: readonly ValidationIssue[]): PlatformError {
  const issue = issues[0];
  const field = issue ? issueField(issue) : "";
  if (!field) return new PlatformError(ErrorCode.InvalidArgument, issue?.message ?? "invalid request");
  return localizedError(
    ErrorCode.InvalidArgument,
    "invalidParameter",
    { field, detail: issue!.message },
    { field },
  );
}

/** Spec 001's workflow API over one data mode: directory, processes, tasks, apps, lists, items, push and statistics. */
function workflowApi(deps: GatewayDeps, mode: WorkflowDataMode) {
  const api = new OpenAPIHono<GatewayEnv>();
  api.route("/", userRoutes(deps, mode));
  api.route("/", tripleRoutes(deps, mode));
  const workflow: WorkflowDeps = {
    sql: deps.db.sql,
    apps: deps.startableApps,
    taskLinks: deps.oauth.taskLinks,
    apiBase: `${deps.config.http.publicUrl}${mode.base}`,
    jsonMaxDepth: deps.config.http.jsonMaxDepth,
  };
  api.route("/", workflowProcessRoutes(deps, workflow, mode));
  api.route("/", workflowTaskRoutes(deps, workflow, mode));
  api.route("/", entrustRoutes(deps, mode));
  api.route("/", thingRoutes(deps, mode));
  api.route("/", pushMessageRoutes(deps, mode));
  api.route("/", workflowAppRoutes(deps, mode));
  api.route("/", workflowInboxRoutes(deps, workflow, mode));
  api.route("/", workflowListRoutes(deps, workflow, mode));
  // After the process routes: 4.12's /process/{id}/{cate} answers what their fixed paths do not.
  api.route("/", workflowDataRoutes(deps, mode));
  api.route("/", positionRoutes(deps, mode));
  api.route("/", enterpriseRoutes(deps, mode));
  api.route("/", codeRoutes(deps, mode));
  api.route("/", accessRoutes(deps, mode));
  api.route("/", workflowStatsRoutes(deps, mode));
  return api;
}

/**
 * The gateway: body limit, text check and error mapping, then one sub-app per API surface; its
 * `fetch` gives each request its id and log line.
 */
export function createGateway(deps: GatewayDeps) {
  const routes = new RouteRecorder(new PrefixRouter<MatchedRoute>("/apis"));
  const app = new OpenAPIHono<GatewayEnv>({
    router: routes,
    defaultHook: (result) => {
      if (!result.success) throw validationError(result.error.issues);
    },
  });

  // Only methods that carry a body pass through the limits; GETs skip the extra middleware entirely.
  const { bodyLimitBytes: maxBytes, jsonMaxDepth: maxJsonDepth } = deps.config.http;
  app.on(["POST", "PUT", "PATCH", "DELETE"], "*", limitBody({ maxBytes, maxJsonDepth }));
  // A surface that stores or looks up what callers send is mounted behind the text check; health,
  // metrics and documents are not, and with no middleware before them answer without a promise.
  const mountStoring = <SurfaceEnv extends Env>(prefix: string, surfaceApp: Hono<SurfaceEnv>) => {
    app.use(`${prefix}/*`, requireStorableText());
    app.route(prefix, surfaceApp);
  };

  app.onError((error, c) => {
    const platformError = asPlatformError(error);
    const { status } = errorMapping(platformError.code);
    const context = { requestId: c.env.requestId, path: c.req.path, code: platformError.code };
    if (status === 503) {
      // A dependency out of reach: one line per request, without a stack, for as long as it lasts.
      const cause = platformError.cause instanceof Error ? platformError.cause.message : undefined;
      deps.log.warn({ ...context, reason: cause ?? platformError.message }, "request failed");
    } else if (status >= 500 && !(platformError instanceof WorkflowRefusal)) {
      // A workflow refusal is the caller's request not fitting the flow, whatever its errno's kind.
      deps.log.error({ ...context, err: platformError.cause ?? error }, "request failed");
    }
    return errorResponse(c, platformError);
  });
  app.notFound((c) =>
    errorResponse(
      c,
      localizedError(ErrorCode.NotFound, "noRoute", { method: c.req.method, path: c.req.path }),
    ),
  );

  app.route("/", landingRoutes(deps));
  // /healthz and /readyz
  app.route("/", healthRoutes(deps));
  app.route("/metrics", metricsRoutes(deps));
  const oauth = oauthRoutes(deps);
  oauth.route("/", authorizeRoutes(deps));
  mountStoring("/oauth2", oauth);
  // /.well-known/oauth-authorization-server
  app.route("/", oauthMetadataRoutes(deps));
  // Every /apis path answers in spec 001's envelope, an unknown one (or one `..` took out of a mode) too.
  app.use("/apis/*", surface("workflow"));
  for (const mode of WORKFLOW_DATA_MODES) mountStoring(mode.base, workflowApi(deps, mode));
  // Spec 001's push subscriptions, at {workflow_base_url}/message, in its envelope.
  app.use("/message/*", surface("workflow"));
  mountStoring("/message", pushSubscriptionRoutes(deps));
  const notifications = notificationRoutes(deps);
  mountStoring("/v1/notification", notifications.send);
  mountStoring("/notification", notifications.status);
  mountStoring("/v1/signature", signatureRoutes(deps));
  mountStoring("/file", fileRoutes(deps));
  mountStoring("/export", exportRoutes(deps));
  // The operators' API, with its token; off (404) without ADMIN_TOKEN.
  if (deps.config.adminToken) {
    const admin = new OpenAPIHono<GatewayEnv>();
    admin.use(requireOperatorToken(deps.config.adminToken, "admin"));
    admin.route("/", adminRoutes(deps));
    admin.route("/", accessAdminRoutes(deps));
    admin.route("/", adminReadRoutes(deps));
    admin.route("/", sealAdminRoutes(deps));
    admin.route("/", bootstrapExportRoutes(deps));
    admin.route("/", tenantAdminRoutes(deps));
    admin.route("/", tenantStatisticsRoutes(deps));
    admin.route("/", tenantAdministratorRoutes(deps));
    admin.route("/feeds", feedAdminRoutes(deps));
    admin.route("/queues", queueAdminRoutes(deps));
    admin.route("/channels", channelAdminRoutes(deps));
    admin.route("/workflows", outboxAdminRoutes(deps));
    admin.route("/workflows", workflowAdminRoutes(deps));
    admin.route("/workflows", workflowAdminReadRoutes(deps));
    admin.route("/workflows", callbackAdminRoutes(deps));
    mountStoring("/admin", admin);
    mountStoring("/console", consoleRoutes(deps, deps.config.adminToken));
  } else {
    // Off, and saying so: an operator who left ADMIN_TOKEN out learns why rather than guessing.
    const off = (c: Context<GatewayEnv>) =>
      errorResponse(
        c,
        new PlatformError(
          ErrorCode.NotFound,
          "the admin API and the console are off: start the platform with ADMIN_TOKEN (at least 32 characters) to turn them on",
        ),
      );
    for (const path of ["/admin", "/admin/*", "/console", "/console/*"]) app.all(path, off);
  }
  app.route("/docs", docsRoutes());

  const registry = app.openAPIRegistry;
  registry.registerComponent("securitySchemes", "bearer", {
    type: "http",
    scheme: "bearer",
    description: "an access token from /oauth2/token; or the access_token query parameter",
  });
  registry.registerComponent("securitySchemes", "client", {
    type: "http",
    scheme: "basic",
    description:
      "the application's id and secret (RFC 6749 §2.3.1); the endpoints also take client_id and client_secret in the form",
  });
  registry.registerComponent("securitySchemes", "admin", {
    type: "http",
    scheme: "bearer",
    description: "the operator token (ADMIN_TOKEN), in the Authorization header only",
  });
  registry.registerComponent("securitySchemes", "metrics", {
    type: "http",
    scheme: "bearer",
    description: "the scraper's token (METRICS_TOKEN)",
  });
  openApiDocumentRoute(app, deps.config.http.publicUrl);

  // Hono builds a router's matcher at its first request; both are built here instead, which a start
  // does while its database starts, and no request waits for it.
  for (const path of ["/healthz", WORKFLOW_DATA_MODES[0]!.base]) routes.match("GET", path);
  const served: typeof app.fetch = (request, env, context) => app.fetch(tripleFormOf(request), env, context);
  return { app, fetch: withRequestLog(served, routes, deps.log) };
}

export type Gateway = ReturnType<typeof createGateway>;
