import { OpenAPIHono, z } from "@hono/zod-openapi";
import type { GatewayEnv, GatewayUses } from "../gateway-env.ts";
import { serve } from "../operation.ts";

function landingPage(adminOn: boolean): string {
  const console = adminOn
    ? `<li><a href="/console">Operator console</a>: tenants, applications, seals, channels, queues</li>`
    : `<li>Operator console and admin API: off until the platform runs with <code>ADMIN_TOKEN</code> set (at least 32 characters)</li>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>University open platform</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem}code{font-size:90%}</style>
</head><body>
<h1>University open platform</h1>
<p>OAuth2-protected APIs for applications: seals, notifications, workflows, files and exports.</p>
<ul>
<li><a href="/docs">API reference</a> (<a href="/openapi.json">OpenAPI 3.1 document</a>)</li>
<li><a href="/.well-known/oauth-authorization-server">OAuth2 server metadata</a></li>
${console}
<li><a href="/healthz">/healthz</a> (alive) and <a href="/readyz">/readyz</a> (database and broker reachable)</li>
</ul>
</body></html>
`;
}

/** `/`: where a person who opens the platform's address in a browser finds their way. */
export function landingRoutes(deps: GatewayUses<"config">) {
  const page = landingPage(Boolean(deps.config.adminToken));
  const app = new OpenAPIHono<GatewayEnv>();
  serve(app, {
    surface: "platform",
    method: "get",
    path: "/",
    operationId: "getLandingPage",
    tags: ["Documentation"],
    summary: "A page pointing to the API reference, the operator console and the health checks",
    responses: {
      200: { description: "an HTML page", content: { "text/html": { schema: z.string() } } },
    },
    handle: (c) =>
      c.html(page, 200, {
        "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
      }),
  });
  return app;
}
