import { OpenAPIHono, z } from "@hono/zod-openapi";
import { bootstrapSchema } from "../../contracts/bootstrap.ts";
import { exportBootstrapDocument } from "../bootstrap-sections.ts";
import type { GatewayEnv, GatewayUses } from "../gateway-env.ts";
import { serve } from "../operation.ts";

const exportedSchema = bootstrapSchema.omit({ $schema: true, channels: true }).openapi("BootstrapExport", {
  description:
    "a bootstrap document of the configuration: no application secret, no password, no `channels` (they live in the file, not the database)",
});

/** The configuration as a bootstrap document, for version control; applying it changes nothing. */
export function bootstrapExportRoutes(deps: GatewayUses<"db" | "log">) {
  const app = new OpenAPIHono<GatewayEnv>();
  serve(app, {
    surface: "platform",
    method: "get",
    path: "/bootstrap",
    operationId: "exportBootstrap",
    tags: ["Admin"],
    summary:
      "Export tenants, applications, accounts (not the feed's), seals, feeds and workflow apps as a bootstrap document, without secrets",
    security: [{ admin: [] }],
    responses: {
      200: {
        description: "the document",
        headers: z.object({
          "X-Omitted-Entries": z.string().openapi({
            description:
              "how many entries the bootstrap schema cannot express (an account pushed with an e-mail address it refuses) were left out; the log names each",
          }),
        }),
        content: { "application/json": { schema: exportedSchema } },
      },
    },
    errors: [409, 503],
    meanings: {
      409: "the platform holds more of a section than a bootstrap document takes, or more seal images than an export carries",
    },
    operatorToken: true,
    handle: async (c) => {
      const { document, omitted } = await exportBootstrapDocument(deps.db.sql, deps.log);
      c.header("Cache-Control", "no-store");
      c.header("X-Omitted-Entries", String(omitted));
      return c.json(document, 200);
    },
  });
  return app;
}
