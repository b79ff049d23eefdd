import { OpenAPIHono, z } from "@hono/zod-openapi";
import { appDetails, changeApp } from "../../workflow/app-administration.ts";
import type { GatewayEnv, GatewayUses } from "../gateway-env.ts";
import type { WorkflowDataMode } from "../workflow/data-mode.ts";
import { booleanParameter } from "../workflow/directory-parameters.ts";
import { workflowOperationsOn } from "../workflow/workflow-operation.ts";

const versionSchema = z
  .object({
    id: z.uuid(),
    name: z.string().nullable(),
    number: z.number().int(),
    current: z.boolean(),
    online: z.boolean(),
    schema: z.object({ fields: z.array(z.record(z.string(), z.unknown())) }),
    graph: z
      .object({
        nodes: z.array(z.record(z.string(), z.unknown())),
        edges: z.array(z.record(z.string(), z.unknown())),
      })
      .openapi({ description: "the flow's steps and the edges between them, as the version was deployed" }),
    events: z
      .array(z.record(z.string(), z.unknown()))
      .openapi({ description: "the messenger callbacks: the event types each URL is told of" }),
  })
  .openapi("WorkflowVersion");
const appSchema = z
  .object({
    id: z.uuid(),
    code: z.string(),
    name: z.string(),
    rating: z.number().int(),
    rated: z.number().int(),
    visible: z.boolean(),
    ready: z.boolean(),
    startable: z.boolean().openapi({
      description:
        "beyond spec 001: whether the caller's user may start it now (ready, and a starter when the app names starters); for a sys token naming no user, whether it is ready",
    }),
    currentVersion: versionSchema.nullable(),
    versions: z.array(versionSchema).optional(),
  })
  .passthrough()
  .openapi("WorkflowApp");
const idcParam = z.object({ idc: z.string().min(1).max(64) });

/**
 * Spec 001 4.1 and 4.2: a workflow app's administration data, and taking its versions on and off
 * line. Changing an app is for sys tokens; who administers, views and starts an app is given by
 * the operator's lists (bootstrap file, admin API, console).
 */
export function workflowAppRoutes(
  deps: GatewayUses<"config" | "db" | "oauth" | "workflowTenants">,
  mode: WorkflowDataMode,
) {
  const app = new OpenAPIHono<GatewayEnv>();
  const sql = deps.db.sql;
  const operation = workflowOperationsOn(app, deps, mode);
  const { publicUrl } = deps.config.http;

  operation(
    {
      method: "get",
      path: "/app/{idc}",
      operationId: "getApp",
      summary:
        "4.1 A workflow app (id or code): its fields, the form of its current version (or `version`), its versions",
      tag: "administration",
      scope: "sys_app",
      kinds: "u/s",
      params: idcParam,
      parameters: z.object({
        version: z.string().max(64).optional(),
        includeVersions: booleanParameter.optional(),
      }),
      entity: appSchema,
      entityName: "App",
    },
    async (_c, caller, { params, parameters }) => ({
      entities: [await appDetails(sql, publicUrl, caller, params.idc, parameters)],
    }),
  );

  operation(
    {
      method: "post",
      path: "/app/{idc}",
      operationId: "changeApp",
      summary:
        "4.2 Change a workflow app: take a version `online` or `offline` (for test data with `beta`, always on /apis/v2d), `ready`, `visible`, `recommendation`, `department`, `contact` (these five on /apis/v2 only)",
      tag: "administration",
      scope: "sys_app_edit",
      kinds: "u/s",
      params: idcParam,
      parameters: z.object({
        online: z.uuid().optional(),
        offline: z.uuid().optional(),
        beta: booleanParameter.optional(),
        recommendation: z.coerce.number().int().min(0).max(1_000_000).optional(),
        ready: booleanParameter.optional(),
        visible: booleanParameter.optional(),
        department: z.string().max(200).optional(),
        contact: z.string().max(200).optional(),
      }),
      entity: appSchema,
      entityName: "App",
    },
    async (_c, caller, { params, parameters }) => ({
      entities: [await changeApp(deps.db, publicUrl, caller, params.idc, parameters)],
    }),
  );
  return app;
}
