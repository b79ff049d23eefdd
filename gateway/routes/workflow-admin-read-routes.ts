import { OpenAPIHono, z } from "@hono/zod-openapi";
import {
  tenantWorkflowApps,
  VERSIONS_SHOWN,
  type VersionSummary,
  type WorkflowApp,
} from "../../workflow/workflow-admin.ts";
import { afterKey, pageOf, pageQuery, pageSchema } from "../admin-paging.ts";
import type { GatewayEnv, GatewayUses } from "../gateway-env.ts";
import { serve } from "../operation.ts";
import { appDescriptionFields } from "../workflow/workflow-schemas.ts";

const versionSchema = z
  .object({
    id: z.uuid(),
    number: z.number().int(),
    name: z.string().nullable(),
    online: z.boolean().openapi({ description: "online for formal data (/apis/v2)" }),
    beta: z.boolean().openapi({ description: "online for test data (/apis/v2d)" }),
    createdAt: z.string(),
  })
  .openapi("AdminWorkflowVersion");

const appSchema = z
  .object({
    id: z.uuid(),
    code: z.string(),
    name: z.string(),
    ...appDescriptionFields,
    recommendation: z.number().int(),
    visible: z.boolean(),
    ready: z.boolean(),
    createdAt: z.string(),
    versionCount: z.number().int(),
    versions: z
      .array(versionSchema)
      .openapi({ description: `the newest ${VERSIONS_SHOWN} versions, newest first` }),
  })
  .openapi("AdminWorkflowApp");

function versionView(version: VersionSummary): z.infer<typeof versionSchema> {
  const { id, number, name, onlineFormal, onlineTest, createdAt } = version;
  return { id, number, name, online: onlineFormal, beta: onlineTest, createdAt: createdAt.toISOString() };
}

/** The operators' read of a tenant's workflow apps and their versions, page by page. */
export function workflowAdminReadRoutes(deps: GatewayUses<"db">) {
  const app = new OpenAPIHono<GatewayEnv>();
  const sql = deps.db.sql;
  serve(app, {
    surface: "platform",
    method: "get",
    path: "/{domain}",
    operationId: "listWorkflowApps",
    tags: ["Admin"],
    summary: "A tenant's workflow apps, by code, with their versions and which are online",
    security: [{ admin: [] }],
    request: { params: z.object({ domain: z.string().min(1).max(253) }), query: pageQuery(1) },
    responses: {
      200: {
        description: "a page of workflow apps",
        content: { "application/json": { schema: pageSchema(appSchema, "AdminWorkflowAppPage") } },
      },
    },
    errors: [400, 404, 503],
    meanings: { 404: "no such tenant" },
    operatorToken: true,
    handle: async (c) => {
      const { domain } = c.req.valid("param");
      const { limit, after } = c.req.valid("query");
      const [from = null] = afterKey(after, 1) ?? [];
      const { apps, versionsOf } = await tenantWorkflowApps(sql, domain, from, limit);
      const view = (row: WorkflowApp): z.infer<typeof appSchema> => {
        const { tenantId: _tenant, createdAt, ...fields } = row;
        const own = versionsOf.get(row.id) ?? [];
        return {
          ...fields,
          createdAt: createdAt.toISOString(),
          versionCount: own[0]?.versionCount ?? 0,
          versions: own.map(versionView),
        };
      };
      c.header("Cache-Control", "no-store");
      return c.json(
        pageOf(apps, limit, (row) => [row.code], view),
        200,
      );
    },
  });
  return app;
}
