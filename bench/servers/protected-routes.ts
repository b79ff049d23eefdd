import { serve } from "@hono/node-server";
import { Hono } from "hono";
import type { GatewayEnv } from "../../gateway/gateway-env.ts";
import { requireToken } from "../../gateway/middleware/require-token.ts";
import { requireStorableText } from "../../gateway/middleware/storable-text.ts";
import { createOAuthServices } from "../../gateway/oauth/oauth-services.ts";
import { PrefixRouter } from "../../gateway/prefix-router.ts";
import { type MatchedRoute, RouteRecorder, withRequestLog } from "../../gateway/request-log.ts";
import { loadConfig } from "../../runtime/config.ts";
import { openPlatform } from "../../runtime/platform.ts";

// Two identical routes behind the gateway's request log and the text check of its surfaces, one
// behind the token check too, for the protected-call benchmark. Sends the parent a valid token once
// it listens.
const config = loadConfig();
const platform = await openPlatform(config, "bench", {});
const { accessTokens } = await createOAuthServices(platform);
const handler = (c: { json: (body: unknown) => Response }) => c.json({ status: "ok" });
const routes = new RouteRecorder(new PrefixRouter<MatchedRoute>("/apis"));
const app = new Hono<GatewayEnv>({ router: routes })
  .use("/v1/*", requireStorableText())
  .get("/v1/open", handler)
  .get("/v1/protected", requireToken(accessTokens, { scopes: ["signature"] }), handler);
const token = await accessTokens.issue({
  clientId: "bench",
  userId: undefined,
  tenantId: undefined,
  grant: "client_credentials",
  kind: "sys",
  scopes: ["signature"],
});
const fetch = withRequestLog(app.fetch, routes, platform.log);
const server = serve(
  { fetch: fetch as Parameters<typeof serve>[0]["fetch"], port: config.http.port, hostname: "127.0.0.1" },
  () => process.send?.(token),
);
process.on("SIGTERM", () => server.close(() => void platform.db.close().then(() => process.exit(0))));
