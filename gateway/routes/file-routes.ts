import { OpenAPIHono } from "@hono/zod-openapi";
import type { GatewayEnv, GatewayUses } from "../gateway-env.ts";
import { requireToken } from "../middleware/require-token.ts";
import { surface } from "../middleware/surface.ts";
import { downloadRoute, metaRoute, thumbnailRoute } from "./file-download-routes.ts";
import { deleteRoute, metaUpdateRoute, replaceRoute, uploadRoute } from "./file-upload-routes.ts";

/**
 * Spec 001's file service: upload, download, replace, delete, meta and thumbnails. Each operation
 * is documented beside its handler, not validated by the framework: uploads are read as they
 * stream in, and a file id that is not one is simply not found.
 */
export function fileRoutes(deps: GatewayUses<"config" | "db" | "downloads" | "jobs" | "oauth" | "storage">) {
  const { config, storage } = deps;
  const app = new OpenAPIHono<GatewayEnv>();
  // File operations answer real HTTP statuses with spec 001's Response envelope (never 200 for a failure).
  app.use(surface("platform"));
  const downloads = { config, storage, access: deps.downloads };
  const uploads = {
    config,
    files: { sql: deps.db.sql, storage, jobs: deps.jobs },
    anyToken: requireToken(deps.oauth.accessTokens, { scopes: [] }),
  };
  // In the order of the API's document.
  uploadRoute(app, uploads);
  downloadRoute(app, downloads);
  replaceRoute(app, uploads);
  deleteRoute(app, uploads);
  metaRoute(app, downloads);
  metaUpdateRoute(app, uploads);
  thumbnailRoute(app, downloads);
  return app;
}
