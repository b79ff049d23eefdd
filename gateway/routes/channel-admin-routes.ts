import { OpenAPIHono, z } from "@hono/zod-openapi";
import { ErrorCode, PlatformError } from "../../contracts/errors.ts";
import { maskedChannels, removeChannel } from "../../notifications/channel-admin.ts";
import type { GatewayEnv, GatewayUses } from "../gateway-env.ts";
import { serve } from "../operation.ts";

const channelSchema = z
  .object({
    name: z.string(),
    plugin: z.string(),
    config: z.record(z.string(), z.unknown()).openapi({
      description:
        'inline credentials masked; a value read from the workers\' environment shows as {"env": "NAME"}',
    }),
    operatorApplication: z.string().optional(),
    permittedApplications: z.array(z.string()),
    ratePerSecond: z.number().optional(),
    maxInFlight: z.number().int(),
  })
  .openapi("Channel");

/**
 * The operators' view of the notification channels. They are set with PUT /admin/bootstrap (or
 * the bootstrap file, or the CLI), checked against their plugin's configuration schema there, and
 * followed by every process within seconds.
 */
export function channelAdminRoutes(deps: GatewayUses<"db" | "log">) {
  const app = new OpenAPIHono<GatewayEnv>();
  const changeDeps = { sql: deps.db.sql, changes: deps.db.changes, log: deps.log };
  const tags = ["Admin: channels"];
  const security = [{ admin: [] }];

  serve(app, {
    surface: "platform",
    method: "get",
    path: "/",
    operationId: "listChannels",
    tags,
    summary: "The configured notification channels, credentials masked",
    security,
    responses: {
      200: {
        description: "the channels, by name",
        content: { "application/json": { schema: z.object({ items: z.array(channelSchema) }) } },
      },
    },
    errors: [503],
    operatorToken: true,
    handle: async (c) => {
      const items = await maskedChannels(deps.db.sql);
      c.header("Cache-Control", "no-store");
      return c.json({ items }, 200);
    },
  });

  serve(app, {
    surface: "platform",
    method: "delete",
    path: "/{name}",
    operationId: "removeChannel",
    tags,
    summary: "Remove a channel: sends naming it are refused, and workers close its sender",
    security,
    request: { params: z.object({ name: z.string().regex(/^[a-z][a-z0-9_]{0,63}$/, "a channel's name") }) },
    responses: {
      200: {
        description: "removed",
        content: { "application/json": { schema: z.object({ removed: z.literal(true) }) } },
      },
    },
    errors: [400, 404, 503],
    meanings: { 404: "no such channel" },
    operatorToken: true,
    handle: async (c) => {
      const { name } = c.req.valid("param");
      if (!(await removeChannel(changeDeps, name)))
        throw new PlatformError(ErrorCode.NotFound, `no channel ${name}`);
      deps.log.info({ channel: name }, "channel removed");
      return c.json({ removed: true as const }, 200);
    },
  });
  return app;
}
