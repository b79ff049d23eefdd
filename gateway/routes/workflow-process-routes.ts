import { OpenAPIHono, z } from "@hono/zod-openapi";
import { PROCESS_ACTIONS } from "../../workflow/process-actions.ts";
import {
  actOnProcessFor,
  processActivities,
  readProcess,
  startProcessFor,
} from "../../workflow/process-service.ts";
import type { WorkflowDeps } from "../../workflow/workflow-deps.ts";
import type { GatewayEnv, GatewayUses } from "../gateway-env.ts";
import type { WorkflowDataMode } from "../workflow/data-mode.ts";
import {
  booleanParameter,
  idParam,
  listParameter,
  pageParameters,
  usersParameter,
} from "../workflow/directory-parameters.ts";
import { workflowOperationsOn } from "../workflow/workflow-operation.ts";
import { activitySchema, processSchema, startedSchema } from "../workflow/workflow-schemas.ts";

/**
 * Spec 001's operations on a process: start (3.2), read (2.8), act on it (3.3, 4.5) and its
 * activities (4.13). Each change runs in one transaction, so what it did is visible when it answers.
 */
export function workflowProcessRoutes(
  deps: GatewayUses<"channels" | "oauth" | "workflowTenants">,
  processes: WorkflowDeps,
  mode: WorkflowDataMode,
) {
  const app = new OpenAPIHono<GatewayEnv>();
  const operation = workflowOperationsOn(app, deps, mode);

  operation(
    {
      method: "put",
      path: "/process",
      operationId: "startProcess",
      summary: "3.2 Start a process; its first step enters the owner's to-do at once",
      tag: "task execution",
      scope: "start",
      kinds: "u/s",
      parameters: z.object({
        assignTo: z.string().min(1).max(360).optional(),
        secureURIExpire: z.coerce.number().int().min(1).max(31_536_000).optional(),
        code: z.string().min(1).max(64).optional(),
        entrance: z.string().min(1).max(64).optional(),
        businessId: z.string().max(200).optional(),
        data: z.union([z.string().max(1_000_000), z.record(z.string(), z.unknown())]).optional(),
      }),
      headers: z.object({
        "idempotency-key": z
          .string()
          .regex(/^[\x21-\x7e]{1,255}$/, "1 to 255 visible ASCII characters")
          .optional()
          .openapi({
            description:
              "beyond spec 001: the same key sent again by the same application within a day answers the process the first start made, instead of starting another; sent with other parameters, it is refused (IDEMPOTENCY_KEY_REUSED)",
          }),
      }),
      entity: startedSchema,
      entityName: "StartedProcess",
    },
    async (_c, caller, { parameters, headers }) => ({
      entities: await startProcessFor(processes, caller, {
        ...parameters,
        idempotencyKey: headers["idempotency-key"],
      }),
    }),
  );

  operation(
    {
      method: "get",
      path: "/process/{id}",
      operationId: "getProcess",
      summary: "2.8 A process (serial number or id) with its tasks, milestones and activities",
      tag: "task query",
      scope: "process",
      kinds: "u/s",
      params: idParam,
      parameters: z.object({
        visibility: z.enum(["all", "default"]).optional(),
        entryRef: z.coerce.number().int().min(1).optional(),
        includeAncestors: booleanParameter.optional(),
        includeExecutors: booleanParameter.optional(),
      }),
      entity: processSchema,
      entityName: "Process",
      // The URL a link came with: its process, by serial number or id, showing its task.
      opensWithTaskLink: (c, link) =>
        c.req.query("task") === link.taskId &&
        [link.processId, String(link.processEntry)].includes(c.req.param("id") ?? ""),
    },
    async (_c, caller, { params, parameters }) => ({
      entities: [await readProcess(processes, caller, params.id, parameters)],
    }),
  );

  operation(
    {
      method: "post",
      path: "/process/{id}",
      operationId: "actOnProcess",
      summary:
        "3.3 (user token, process_edit) and 4.5 (sys token, sys_process_edit): rate, submit (4.5 only), kill, suspend, resume, compensate, archive, mark, tag (one of the tenant's tags, `tag`), read, unread, dismiss",
      tag: "task execution",
      scope: "process_edit",
      kinds: "u/s",
      params: idParam,
      parameters: z.object({
        action: z.enum(PROCESS_ACTIONS).default("rate"),
        rating: z.coerce.number().int().min(0).max(5).optional(),
        remark: z.string().max(4000).optional(),
        stepCode: z.string().min(1).max(64).optional(),
        actionCode: z.string().min(1).max(64).optional(),
        nextSteps: listParameter(/,/, 20, 64).optional(),
        nextUsers: usersParameter.optional(),
        splitPath: z.string().max(100).optional(),
        thing: z.string().min(1).max(200).optional(),
        priority: z.enum(["low", "normal", "important", "critical"]).optional(),
        tag: z.string().min(1).max(64).optional(),
      }),
      entity: processSchema,
      entityName: "Process",
    },
    async (_c, caller, { params, parameters }) => ({
      entities: [await actOnProcessFor(processes, caller, params.id, parameters)],
    }),
  );

  operation(
    {
      method: "get",
      path: "/process/{id}/activities",
      operationId: "getProcessActivities",
      summary:
        "4.13 Activity records of a process (serial number, id, or `*` for every process), newest first",
      tag: "administration",
      scope: "process",
      kinds: "u/s",
      params: idParam,
      parameters: z.object({
        keyword: z.string().max(200).optional(),
        timestamps: z.string().max(50).optional(),
        app: z.string().max(64).optional(),
        categories: listParameter(/,/, 5, 20).optional(),
        levels: listParameter(/,/, 4, 10).optional(),
        ...pageParameters,
      }),
      entity: activitySchema,
      entityName: "Activity",
    },
    async (_c, caller, { params, parameters }) => {
      const { total, activities } = await processActivities(processes, caller, params.id, parameters);
      return { entities: activities, total };
    },
  );
  return app;
}
