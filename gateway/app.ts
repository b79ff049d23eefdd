import { OpenAPIHono } from "@hono/zod-openapi";
import { ErrorCode, localizedError, PlatformError } from "../contracts/errors.ts";
import { asPlatformError, errorMapping, errorResponse } from "./error-envelope.ts";
import type { GatewayDeps, GatewayEnv } from "./gateway-env.ts";
import { limitBody } from "./middleware/body-limit.ts";
import { requestLog } from "./middleware/request-log.ts";
import { requireStorableText } from "./middleware/storable-text.ts";
import { adminRoutes } from "./routes/admin-routes.ts";
import { authorizeRoutes } from "./routes/authorize-routes.ts";
import { docsRoutes } from "./routes/docs-routes.ts";
import { exportRoutes } from "./routes/export-routes.ts";
import { feedAdminRoutes } from "./routes/feed-admin-routes.ts";
import { fileRoutes } from "./routes/file-routes.ts";
import { healthRoutes } from "./routes/health-routes.ts";
import { metricsRoutes } from "./routes/metrics-routes.ts";
import { notificationRoutes } from "./routes/notification-routes.ts";
import { oauthRoutes } from "./routes/oauth-routes.ts";
import { positionRoutes } from "./routes/position-routes.ts";
import { signatureRoutes } from "./routes/signature-routes.ts";
import { tripleRoutes } from "./routes/triple-routes.ts";
import { userRoutes } from "./routes/user-routes.ts";
import { SealCache } from "./seal-cache.ts";
import { WorkflowTenants } from "./workflow-tenant.ts";

/** A request that breaks its route's schema: the message names the field and the rule. */
function validationError(
  issues: readonly { path: readonly PropertyKey[]; message: string }[],
): PlatformError {
  const issue = issues[0];
  const field = issue?.path.map(String).join(".") ?? "";
  if (!field) return new PlatformError(ErrorCode.InvalidArgument, issue?.message ?? "invalid request");
  return localizedError(
    ErrorCode.InvalidArgument,
    "invalidParameter",
    { field, detail: issue!.message },
    { field },
  );
}

/** The gateway: request id and log, body limit, error mapping, then one sub-app per API surface. */
export function createGateway(deps: GatewayDeps) {
  const app = new OpenAPIHono<GatewayEnv>({
    defaultHook: (result) => {
      if (!result.success) throw validationError(result.error.issues);
    },
  });

  app.use(requestLog(deps.log));
  // Only methods that carry a body pass through the limit; GETs skip the extra middleware entirely.
  app.on(["POST", "PUT", "PATCH", "DELETE"], "*", limitBody(deps.config.http.bodyLimitBytes));
  app.use(requireStorableText());

  app.onError((error, c) => {
    const platformError = asPlatformError(error);
    const { status } = errorMapping(platformError.code);
    const context = { requestId: c.get("requestId"), path: c.req.path, code: platformError.code };
    if (status === 503) {
      // A dependency out of reach: one line per request, without a stack, for as long as it lasts.
      const cause = platformError.cause instanceof Error ? platformError.cause.message : undefined;
      deps.log.warn({ ...context, reason: cause ?? platformError.message }, "request failed");
    } else if (status >= 500) {
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

  app.route("/", healthRoutes(deps));
  app.route("/", metricsRoutes(deps));
  app.route("/", oauthRoutes(deps));
  app.route("/", authorizeRoutes(deps));
  const tenants = new WorkflowTenants(deps.db.sql);
  app.route("/", userRoutes(deps));
  app.route("/", tripleRoutes(deps, tenants));
  app.route("/", positionRoutes(deps, tenants));
  app.route("/", notificationRoutes(deps));
  const seals = new SealCache(deps.db.sql);
  app.route("/", signatureRoutes(deps, seals));
  app.route("/", fileRoutes(deps));
  app.route("/", exportRoutes(deps));
  app.route("/", adminRoutes(deps, seals));
  app.route("/", feedAdminRoutes(deps));
  app.route("/", docsRoutes());

  // Built on first request, once every route is registered, then served from memory.
  let openApiDocument: ReturnType<typeof app.getOpenAPI31Document> | undefined;
  app.get("/openapi.json", (c) => {
    openApiDocument ??= app.getOpenAPI31Document({
      openapi: "3.1.0",
      info: {
        title: "University open platform",
        version: "1.0.0",
        description:
          "OAuth2-protected APIs for third-party applications: electronic seals, notifications, workflows, files and exports.",
      },
      servers: [{ url: deps.config.http.publicUrl }],
    });
    openApiDocument.components = {
      ...openApiDocument.components,
      securitySchemes: {
        bearer: {
          type: "http",
          scheme: "bearer",
          description: "an access token; or the access_token query parameter",
        },
      },
    };
    return c.json(openApiDocument);
  });

  return app;
}

export type Gateway = ReturnType<typeof createGateway>;
