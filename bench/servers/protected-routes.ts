import { serve } from "@hono/node-server";
import { Hono } from "hono";
import type { GatewayEnv } from "../../gateway/gateway-env.ts";
import { requestLog } from "../../gateway/middleware/request-log.ts";
import { requireToken } from "../../gateway/middleware/require-token.ts";
import { createOAuthServices } from "../../gateway/oauth/oauth-services.ts";
import { loadConfig } from "../../runtime/config.ts";
import { openPlatform } from "../../runtime/platform.ts";

// Two identical routes, one behind the token check, for the protected-call benchmark. Sends the
// parent a valid token once it listens.
const config = loadConfig();
const platform = await openPlatform(config, "bench", { applyBootstrap: false });
const { accessTokens } = await createOAuthServices(platform);
const handler = (c: { json: (body: unknown) => Response }) => c.json({ status: "ok" });
const app = new Hono<GatewayEnv>()
  .use(requestLog(platform.log))
  .get("/open", handler)
  .get("/protected", requireToken(accessTokens, { scopes: ["signature"] }), handler);
const token = await accessTokens.issue({
  clientId: "bench",
  userId: undefined,
  tenantId: undefined,
  grant: "client_credentials",
  kind: "sys",
  scopes: ["signature"],
});
const server = serve({ fetch: app.fetch, port: config.http.port, hostname: "127.0.0.1" }, () =>
  process.send?.(token),
);
process.on("SIGTERM", () => server.close(() => void platform.db.close().then(() => process.exit(0))));
