import { OpenAPIHono, z } from "@hono/zod-openapi";
import { configuredChannels } from "../../workflow/notification-text.ts";
import { ownAppId } from "../../workflow/own-workflow.ts";
import {
  handleTask,
  setTaskCandidates,
  taskCandidates,
  withdrawTask,
} from "../../workflow/process-service.ts";
import { remindTask } from "../../workflow/task-reminder.ts";
import type { WorkflowDeps } from "../../workflow/workflow-deps.ts";
import type { GatewayEnv, GatewayUses } from "../gateway-env.ts";
import type { WorkflowDataMode } from "../workflow/data-mode.ts";
import { idParam, usersParameter } from "../workflow/directory-parameters.ts";
import { workflowOperationsOn } from "../workflow/workflow-operation.ts";
import { reminderSchema, taskSchema } from "../workflow/workflow-schemas.ts";

/**
 * Spec 001's operations on one task: handle (3.1), withdraw (4.8), candidates (4.6, 4.7) and remind
 * (4.9). Each change runs in one transaction, so what it did is visible when it answers.
 */
export function workflowTaskRoutes(
  deps: GatewayUses<"broker" | "channels" | "jobs" | "oauth" | "workflowTenants">,
  processes: WorkflowDeps,
  mode: WorkflowDataMode,
) {
  const app = new OpenAPIHono<GatewayEnv>();
  const { sql } = processes;
  const operation = workflowOperationsOn(app, deps, mode);

  operation(
    {
      method: "post",
      path: "/task/{id}",
      operationId: "handleTask",
      summary: "3.1 Handle a task, once: an action by id or code, a remark, an item, a pickup code",
      tag: "task execution",
      scope: "submit",
      kinds: "u/s",
      params: idParam,
      parameters: z.object({
        actionId: z.coerce.number().int().min(1).max(1_000_000).optional(),
        actionCode: z.string().min(1).max(64).optional(),
        remark: z.string().max(4000).optional(),
        thing: z.string().min(1).max(200).optional(),
        pickup: z.string().min(1).max(64).optional(),
      }),
      entity: taskSchema,
      entityName: "Task",
      opensWithTaskLink: (c, link) => c.req.param("id") === link.taskId,
    },
    async (_c, caller, { params, parameters }) => ({
      entities: [await handleTask(processes, caller, params.id, parameters)],
    }),
  );

  operation(
    {
      method: "delete",
      path: "/task/{id}",
      operationId: "withdrawTask",
      summary: "4.8 Take a handled task back while nothing it led to has been handled",
      tag: "administration",
      scope: "task_edit",
      kinds: "user",
      params: idParam,
      entity: taskSchema,
      entityName: "Task",
    },
    async (_c, caller, { params }) => ({
      entities: [await withdrawTask(processes, caller, params.id)],
    }),
  );

  operation(
    {
      method: "get",
      path: "/task/{id}/candidates",
      operationId: "getTaskCandidates",
      summary: "4.6 The users who may handle a task (delegates included)",
      tag: "administration",
      scope: "sys_task",
      kinds: "sys",
      params: idParam,
      entity: z.object({ id: z.uuid(), name: z.string(), account: z.string() }).passthrough(),
      entityName: "Profile",
    },
    async (_c, caller, { params }) => {
      const users = await taskCandidates(processes, caller, params.id);
      return { entities: users, total: users.length };
    },
  );

  operation(
    {
      method: "post",
      path: "/task/{id}/candidates",
      operationId: "setTaskCandidates",
      summary: "4.7 Replace who may handle a to-do task (`users`: accounts or ids, comma separated)",
      tag: "administration",
      scope: "sys_task_edit",
      kinds: "sys",
      params: idParam,
      parameters: z.object({ users: usersParameter }),
      entity: taskSchema,
      entityName: "Task",
    },
    async (_c, caller, { params, parameters }) => ({
      entities: [await setTaskCandidates(processes, caller, params.id, parameters.users)],
    }),
  );

  operation(
    {
      method: "put",
      path: "/task/{id}/notification",
      operationId: "remindTask",
      summary:
        "4.9 Send a supervision reminder to whoever may handle a to-do task (delegates included), on the channel and with the text of the tenant's workflow.reminder setting",
      tag: "administration",
      scope: "task_edit",
      kinds: "sys",
      params: idParam,
      entity: reminderSchema,
      entityName: "Reminder",
    },
    async (_c, caller, { params }) => {
      const sent = await remindTask(sql, deps, configuredChannels(deps.channels.list), {
        tenantId: caller.tenantId,
        test: caller.test,
        taskId: params.id,
        applicationId: caller.token.clientId,
        operator: caller.userId ?? null,
        appId: await ownAppId(sql, caller),
      });
      return { entities: sent, total: sent.length };
    },
  );
  return app;
}
