import { OpenAPIHono, z } from "@hono/zod-openapi";
import { bootstrapWorkflowSchema, bootstrapWorkflowVersionSchema } from "../../contracts/bootstrap.ts";
import { deployTenantWorkflow } from "../../workflow/workflow-admin.ts";
import type { GatewayEnv, GatewayUses } from "../gateway-env.ts";
import { serve } from "../operation.ts";

const appFieldsSchema = bootstrapWorkflowSchema.omit({ tenant: true, code: true, versions: true }).partial();
const deploymentSchema = bootstrapWorkflowVersionSchema
  .extend({ app: appFieldsSchema.optional() })
  .openapi("WorkflowDeployment", {
    description:
      "a version to deploy: its definition (checked against every rule, a broken one answered 400 naming the node), whether it is online for formal (`online`) and test (`beta`) data, and the app's fields when the app is new or changes",
  });
const deployedSchema = z
  .object({ app: z.uuid(), version: z.uuid(), number: z.number().int(), created: z.boolean() })
  .openapi("DeployedWorkflowVersion");

/** The operators' API for workflows: deploying a version of a tenant's workflow app. */
export function workflowAdminRoutes(deps: GatewayUses<"db">) {
  const app = new OpenAPIHono<GatewayEnv>();
  serve(app, {
    surface: "platform",
    method: "put",
    path: "/{domain}/{code}/versions",
    operationId: "deployWorkflowVersion",
    tags: ["Admin"],
    summary:
      "Deploy a version of a tenant's workflow app (created when new); the same definition again is the same version",
    security: [{ admin: [] }],
    request: {
      params: z.object({ domain: z.string().max(253), code: bootstrapWorkflowSchema.shape.code }),
      body: { content: { "application/json": { schema: deploymentSchema } }, required: true },
    },
    responses: {
      200: {
        description: "the version deployed",
        content: { "application/json": { schema: deployedSchema } },
      },
    },
    errors: [400, 404, 413, 503],
    meanings: { 404: "no such tenant, or the app's `tags` name one that a tenant keeping tags lacks" },
    operatorToken: true,
    handle: async (c) => {
      const { domain, code } = c.req.valid("param");
      const { app: fields, ...version } = c.req.valid("json");
      const deployed = await deployTenantWorkflow(deps.db, domain, code, fields, version);
      const { id, number, created } = deployed.version;
      return c.json({ app: deployed.app.id, version: id, number, created }, 200);
    },
  });
  return app;
}
