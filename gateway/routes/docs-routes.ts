import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { OpenAPIHono, z } from "@hono/zod-openapi";
// The path module alone: the package entry would load the whole UI bundle into the server.
import getAbsoluteFSPath from "swagger-ui-dist/absolute-path.js";
import type { GatewayEnv } from "../gateway-env.ts";
import { serve } from "../operation.ts";

// A Map, not an object: a name such as `constructor` must not be found among the assets.
const ASSETS = new Map([
  ["swagger-ui.css", "text/css; charset=utf-8"],
  ["swagger-ui-bundle.js", "text/javascript; charset=utf-8"],
]);

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Open platform API reference</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
<div id="reference"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script>
window.ui = SwaggerUIBundle({ url: "/openapi.json", dom_id: "#reference", deepLinking: true });
</script>
</body>
</html>`;

const tags = ["Documentation"];
/** The API reference page, rendered from /openapi.json with assets served locally (no CDN). */
export function docsRoutes() {
  const assetCache = new Map<string, Buffer>();
  const app = new OpenAPIHono<GatewayEnv>();
  // Documented, not validated by the framework: the handlers are plain routes, the page's own HTML and files.
  serve(app, {
    surface: "platform",
    method: "get",
    path: "/",
    operationId: "getApiReference",
    tags,
    summary: "The API reference page (Swagger UI over /openapi.json)",
    responses: { 200: { description: "the page", content: { "text/html": { schema: z.string() } } } },
    ownInput: "all",
    handle: (c) => c.html(PAGE),
  });
  serve(app, {
    surface: "platform",
    method: "get",
    path: "/assets/{file}",
    operationId: "getApiReferenceAsset",
    tags,
    summary: "A script or style sheet of the reference page, served from the platform itself",
    request: { params: z.object({ file: z.enum([...ASSETS.keys()] as [string, ...string[]]) }) },
    responses: {
      200: {
        description: "the asset",
        content: { "text/css": { schema: z.string() }, "text/javascript": { schema: z.string() } },
      },
    },
    errors: [404],
    meanings: { 404: "no such asset" },
    ownInput: "all",
    handle: async (c) => {
      const file = c.req.param("file");
      const type = ASSETS.get(file);
      if (!type) return c.notFound();
      let body = assetCache.get(file);
      if (!body) {
        body = await readFile(join(getAbsoluteFSPath(), file));
        assetCache.set(file, body);
      }
      return c.body(new Uint8Array(body), 200, {
        "content-type": type,
        "cache-control": "public, max-age=86400",
      });
    },
  });
  return app;
}
