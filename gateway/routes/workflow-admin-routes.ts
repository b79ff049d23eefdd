import { OpenAPIHono, z } from "@hono/zod-openapi";
import {
  bootstrapWorkflowSchema,
  deployedAppFieldsSchema,
  deployedVersionFieldsSchema,
  hasOneDefinition,
  ONE_DEFINITION_MESSAGE,
  workflowVersionFieldsSchema,
} from "../../contracts/bootstrap.ts";
import { ErrorCode, PlatformError } from "../../contracts/errors.ts";
import { firstIssueMessage } from "../../contracts/validation-issue.ts";
import { deployTenantWorkflow, tenantWorkflowVersionBpmn } from "../../workflow/workflow-admin.ts";
import type { GatewayEnv, GatewayUses } from "../gateway-env.ts";
import { serve } from "../operation.ts";

const deploymentSchema = deployedVersionFieldsSchema
  .extend({ app: deployedAppFieldsSchema.optional() })
  .refine(hasOneDefinition, ONE_DEFINITION_MESSAGE)
  .openapi("WorkflowDeployment", {
    description:
      "a version to deploy: its definition, as the JSON graph (`definition`) or a BPMN 2.0 document (`bpmn`), checked against every rule, a broken one answered 400 naming the node or BPMN element; whether it is online for formal (`online`) and test (`beta`) data (left out: a new version is off line, one deployed before stays as it is); and the app's fields when the app is new or changes",
  });
const bpmnDocumentSchema = z.string().openapi("BpmnDocument", {
  description: "a BPMN 2.0 document with the platform's extension (docs/bpmn.md)",
});
const flag = z.enum(["true", "false"]).optional();
const xmlDeploymentQuery = z.object({
  online: flag.openapi({
    description: "with a BPMN body: online for formal data (left out: as it is, off line when new)",
  }),
  beta: flag.openapi({
    description: "with a BPMN body: online for test data (left out: as it is, off line when new)",
  }),
  name: workflowVersionFieldsSchema.shape.name,
});
/** A query flag as the deployment takes it: left out stays left out. */
const flagValue = (flag: "true" | "false" | undefined) => (flag === undefined ? undefined : flag === "true");
/** XML media types a BPMN document comes as: modelers and tools send any of these. */
const XML_TYPES = /^(application\/(bpmn\+)?xml|text\/xml)\b/i;
const JSON_TYPE = /^application\/json\b/i;
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
      query: xmlDeploymentQuery,
      body: {
        content: {
          "application/json": { schema: deploymentSchema },
          "application/xml": { schema: bpmnDocumentSchema },
          "text/xml": { schema: bpmnDocumentSchema },
          "application/bpmn+xml": { schema: bpmnDocumentSchema },
        },
        // Checked by the handler: a JSON body by its schema, an XML one by the BPMN import.
        required: false,
      },
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
      const query = c.req.valid("query");
      const type = c.req.header("content-type") ?? "";
      let body: unknown;
      if (XML_TYPES.test(type)) {
        // Held to the JSON body's rules: an empty document or one too long is refused naming `bpmn`.
        const parsed = deploymentSchema.safeParse({
          bpmn: await c.req.text(),
          online: flagValue(query.online),
          beta: flagValue(query.beta),
          name: query.name,
        });
        if (!parsed.success)
          throw new PlatformError(ErrorCode.InvalidArgument, firstIssueMessage(parsed.error.issues));
        body = parsed.data;
      } else if (JSON_TYPE.test(type)) {
        body = c.req.valid("json");
      } else {
        // The JSON body is optional to the router only so that a BPMN document can come instead.
        throw new PlatformError(
          ErrorCode.InvalidArgument,
          "send the deployment as JSON (application/json) or a BPMN 2.0 document (application/xml)",
        );
      }
      const { app: fields, ...version } = body as z.infer<typeof deploymentSchema>;
      const deployed = await deployTenantWorkflow(deps.db, domain, code, fields, version);
      const { id, number, created } = deployed.version;
      return c.json({ app: deployed.app.id, version: id, number, created }, 200);
    },
  });
  serve(app, {
    surface: "platform",
    method: "get",
    path: "/{domain}/{code}/versions/{id}/bpmn",
    operationId: "exportWorkflowVersionBpmn",
    tags: ["Admin"],
    summary:
      "A version as a BPMN 2.0 document with the platform's extension, drawn as deployed or laid out anew",
    security: [{ admin: [] }],
    request: {
      params: z.object({
        domain: z.string().max(253),
        code: bootstrapWorkflowSchema.shape.code,
        id: z.uuid(),
      }),
    },
    responses: {
      200: {
        description: "the version as BPMN 2.0; deployed again, it is the same version",
        content: { "application/xml": { schema: bpmnDocumentSchema } },
      },
    },
    errors: [400, 404, 503],
    meanings: { 404: "no such tenant, app or version" },
    operatorToken: true,
    handle: async (c) => {
      const { domain, code, id } = c.req.valid("param");
      const xml = await tenantWorkflowVersionBpmn(deps.db.sql, domain, code, id);
      return c.body(xml, 200, { "content-type": "application/xml; charset=utf-8" });
    },
  });
  return app;
}
