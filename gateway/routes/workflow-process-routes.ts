import { OpenAPIHono, z } from "@hono/zod-openapi";
import { isBuiltInChannel } from "../../contracts/channels.ts";
import { WorkflowRefusal } from "../../contracts/workflow-errors.ts";
import { userIdsByCodes } from "../../directory/position-store.ts";
import { type Queryable, transaction, transactionRetryingDeadlocks } from "../../runtime/database.ts";
import { queryActivities } from "../../workflow/activity-store.ts";
import { workflowAppByIdOrCode } from "../../workflow/app-store.ts";
import { parseFormData } from "../../workflow/form-data.ts";
import { actOnProcess, PROCESS_ACTIONS } from "../../workflow/process-actions.ts";
import { commandTask, startProcess, submitTask } from "../../workflow/process-commands.ts";
import {
  isAncestor,
  type ProcessRow,
  processByRef,
  processRef,
  todoUsersOfTask,
  tookPart,
} from "../../workflow/process-store.ts";
import { readProcessWithParts } from "../../workflow/process-view-store.ts";
import { processView, profiles, taskViewOf, type ViewOptions } from "../../workflow/process-views.ts";
import { parseRange } from "../../workflow/ranges.ts";
import { type ReminderChannels, remindTask } from "../../workflow/task-reminder.ts";
import type { GatewayDeps, GatewayEnv } from "../gateway-env.ts";
import type { WorkflowDataMode } from "../workflow/data-mode.ts";
import { booleanParameter, listParameter, pageParameters } from "../workflow/directory-parameters.ts";
import { ownAppId } from "../workflow/own-workflow.ts";
import type { StartableApps } from "../workflow/startable-apps.ts";
import type { WorkflowCaller } from "../workflow/workflow-access.ts";
import { workflowOperationsOn } from "../workflow/workflow-operation.ts";
import {
  activitySchema,
  processSchema,
  reminderSchema,
  startedSchema,
  taskSchema,
} from "../workflow/workflow-schemas.ts";
import { namedUser, type WorkflowTenants } from "../workflow/workflow-tenant.ts";

const idParam = z.object({ id: z.string().min(1).max(64) });
const usersParameter = listParameter(/,/, 200, 360);

/** Whether the caller may see or act on a process: a sys token of its tenant (and workflow), a user who took part. */
async function requireAccess(sql: Queryable, caller: WorkflowCaller, process: ProcessRow): Promise<void> {
  await requireOwnWorkflow(sql, caller, process);
  if (caller.sys) return;
  if (!caller.userId || !(await tookPart(sql, process.id, caller.userId))) {
    throw new WorkflowRefusal("PROCESS_NOT_FOUND", "no such process among those the user took part in");
  }
}

/** A Workflow application's token sees and acts on its own workflow's processes only. */
async function requireOwnWorkflow(
  sql: Queryable,
  caller: WorkflowCaller,
  process: ProcessRow,
): Promise<void> {
  const own = await ownAppId(sql, caller);
  if (own && own !== process.appId)
    throw new WorkflowRefusal("WORKFLOW_MISMATCH", "the application's token sees its own workflow only");
}

async function loadProcess(sql: Queryable, caller: WorkflowCaller, id: string): Promise<ProcessRow> {
  const ref = processRef(id);
  const process = ref ? await processByRef(sql, caller.tenantId, caller.test, ref) : undefined;
  if (!process) throw new WorkflowRefusal("PROCESS_NOT_FOUND", `no process ${id}`);
  return process;
}

/** A process with what its view shows, read in one statement; refused as `loadProcess` refuses. */
async function loadProcessWithParts(sql: Queryable, caller: WorkflowCaller, id: string) {
  const ref = processRef(id);
  const read = ref ? await readProcessWithParts(sql, caller.tenantId, caller.test, ref) : undefined;
  if (!read) throw new WorkflowRefusal("PROCESS_NOT_FOUND", `no process ${id}`);
  return read;
}

/** The channels a reminder may name: those configured now. */
function reminderChannelsOf(deps: GatewayDeps): ReminderChannels {
  const configured = new Set(deps.channels.list.map((channel) => channel.name));
  return { configured, external: new Set([...configured].filter((name) => !isBuiltInChannel(name))) };
}

/**
 * Spec 001 3.x and the process operations of 4.x: start (3.2), handle (3.1), read (2.8), act on a
 * process (3.3, 4.5), withdraw (4.8), candidates (4.6, 4.7), remind (4.9), activities (4.13). Each
 * change runs in one transaction, so what it did is visible when it answers.
 */
export function workflowProcessRoutes(
  deps: GatewayDeps,
  tenants: WorkflowTenants,
  apps: StartableApps,
  mode: WorkflowDataMode,
) {
  const app = new OpenAPIHono<GatewayEnv>();
  const sql = deps.db.sql;
  const apiBase = `${deps.config.http.publicUrl}${mode.base}`;
  const views = (extra: Partial<ViewOptions> = {}): ViewOptions => ({
    apiBase,
    showHidden: false,
    includeExecutors: false,
    includeAncestors: false,
    ...extra,
  });
  const operation = workflowOperationsOn(app, deps, tenants, mode);

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
      entity: startedSchema,
      entityName: "StartedProcess",
    },
    async (_c, caller, { parameters }) => {
      const code = caller.workflowCode ?? parameters.code;
      if (caller.workflowCode && parameters.code && parameters.code !== caller.workflowCode) {
        throw new WorkflowRefusal(
          "WORKFLOW_MISMATCH",
          `the application starts its own workflow ${caller.workflowCode} only`,
        );
      }
      if (!code) throw new WorkflowRefusal("APP_NOT_FOUND", "code: name the workflow to start");
      if (caller.sys && !caller.userId)
        throw new WorkflowRefusal("USER_NOT_FOUND", "userId: a sys token names the owner");
      const data = parseFormData(parameters.data, deps.config.http.jsonMaxDepth);
      const workflowApp = await apps.get(caller.tenantId, code, caller.test);
      if (!workflowApp) throw new WorkflowRefusal("APP_NOT_FOUND", `no workflow ${code}`);
      const firstAssignee =
        caller.sys && parameters.assignTo
          ? await namedUser(sql, caller.tenantId, parameters.assignTo)
          : undefined;
      const start = async (db: Queryable) => {
        const started = await startProcess(db, {
          tenantId: caller.tenantId,
          test: caller.test,
          app: workflowApp,
          ownerId: caller.userId!,
          actualUserId: null,
          firstAssignee,
          entrance: parameters.entrance,
          data,
          businessId: parameters.businessId ?? null,
        });
        const task = await taskViewOf(db, started.process, started.firstTask, started.people, views());
        const link =
          firstAssignee && parameters.secureURIExpire
            ? await deps.oauth.taskLinks.issue(db, {
                taskId: task.id,
                processId: started.process.id,
                tenantId: caller.tenantId,
                test: caller.test,
                userId: firstAssignee,
                applicationId: caller.token.clientId,
                ttlSeconds: parameters.secureURIExpire,
              })
            : undefined;
        const uri = link ? `${task.uri}&access_token=${link}` : task.uri;
        return { entities: [started.process.entry, 1, uri, task] };
      };
      // The start writes its process in one statement, atomic on its own; a task link is a second
      // write, and the two commit together.
      return firstAssignee && parameters.secureURIExpire ? transaction(sql, start) : start(sql);
    },
  );

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
    async (_c, caller, { params, parameters }) => {
      if (!/^[0-9a-f-]{36}$/i.test(params.id))
        throw new WorkflowRefusal("TASK_NOT_FOUND", `no task ${params.id}`);
      const { process, task, people } = await submitTask(sql, {
        tenantId: caller.tenantId,
        test: caller.test,
        taskId: params.id,
        actor: caller.userId ? { user: caller.userId } : { system: true },
        sys: caller.sys,
        actionId: parameters.actionId,
        actionCode: parameters.actionCode,
        remark: parameters.remark,
        thing: parameters.thing,
        pickup: parameters.pickup,
        appId: await ownAppId(sql, caller),
      });
      return { entities: [await taskViewOf(sql, process, task, people, views())] };
    },
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
    async (_c, caller, { params, parameters }) => {
      const read = await loadProcessWithParts(sql, caller, params.id);
      const { process } = read;
      if (parameters.entryRef !== undefined && !caller.sys && caller.userId) {
        // A sub-process is visible to whoever took part in the ancestor it names, through a token
        // that may see its workflow.
        await requireOwnWorkflow(sql, caller, process);
        const ancestor = await processByRef(sql, caller.tenantId, caller.test, {
          entry: parameters.entryRef,
        });
        if (
          !ancestor ||
          !(await isAncestor(sql, ancestor.id, process)) ||
          !(await tookPart(sql, ancestor.id, caller.userId))
        ) {
          await requireAccess(sql, caller, process);
        }
      } else {
        await requireAccess(sql, caller, process);
      }
      const showHidden = parameters.visibility === "all" && caller.sys;
      const view = await processView(
        sql,
        read,
        views({
          showHidden,
          includeAncestors: parameters.includeAncestors ?? false,
          includeExecutors: parameters.includeExecutors ?? false,
        }),
      );
      return { entities: [view] };
    },
  );

  operation(
    {
      method: "post",
      path: "/process/{id}",
      operationId: "actOnProcess",
      summary:
        "3.3 (user token, process_edit) and 4.5 (sys token, sys_process_edit): rate, submit (4.5 only), kill, suspend, resume, compensate, archive, mark, read, unread, dismiss",
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
      }),
      entity: processSchema,
      entityName: "Process",
    },
    async (_c, caller, { params, parameters }) =>
      transactionRetryingDeadlocks(sql, async (tx) => {
        const process = await loadProcess(tx, caller, params.id);
        await requireAccess(tx, caller, process);
        // 4.5's `userId` of `*` removes every user's copy on `dismiss`.
        const everyone = caller.sys && parameters.userId === "*";
        await actOnProcess(
          tx,
          { administrator: caller.sys, userId: everyone ? undefined : caller.userId },
          process,
          {
            ...parameters,
            everyone,
          },
        );
        const after = await loadProcessWithParts(tx, caller, params.id);
        return { entities: [await processView(tx, after, views())] };
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
    async (_c, caller, { params }) =>
      transactionRetryingDeadlocks(sql, async (tx) => {
        const { process, task, people } = await commandTask(
          tx,
          caller.tenantId,
          caller.test,
          params.id,
          { kind: "withdraw", task: params.id, user: caller.userId! },
          await ownAppId(tx, caller),
          caller.userId!,
        );
        return { entities: [await taskViewOf(tx, process, task, people, views())] };
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
      const todoUsers = await todoUsersOfTask(
        sql,
        caller.tenantId,
        caller.test,
        params.id,
        await ownAppId(sql, caller),
      );
      const users = await profiles(sql, todoUsers);
      return { entities: [...users.values()], total: users.size };
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
    async (_c, caller, { params, parameters }) =>
      transactionRetryingDeadlocks(sql, async (tx) => {
        const users = await userIdsByCodes(tx, caller.tenantId, parameters.users);
        if (users.length !== parameters.users.length)
          throw new WorkflowRefusal("USER_NOT_FOUND", "users names a user who does not exist");
        const { process, task, people } = await commandTask(
          tx,
          caller.tenantId,
          caller.test,
          params.id,
          { kind: "reassign", task: params.id, candidates: users, user: caller.userId ?? null },
          await ownAppId(tx, caller),
        );
        return { entities: [await taskViewOf(tx, process, task, people, views())] };
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
      const sent = await remindTask(sql, deps, reminderChannelsOf(deps), {
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
      let processId: string | undefined;
      let userId = parameters.userId && caller.sys ? caller.userId : undefined;
      if (params.id !== "*") {
        const process = await loadProcess(sql, caller, params.id);
        await requireAccess(sql, caller, process);
        processId = process.id;
      } else if (!caller.sys) {
        userId = caller.userId;
      }
      const range = parameters.timestamps ? parseRange(parameters.timestamps, "timestamps") : undefined;
      const own = await ownAppId(sql, caller);
      const appId = parameters.app
        ? (await workflowAppByIdOrCode(sql, caller.tenantId, parameters.app))?.id
        : own;
      if (parameters.app && !appId)
        throw new WorkflowRefusal("APP_NOT_FOUND", `no workflow ${parameters.app}`);
      if (own && appId !== own)
        throw new WorkflowRefusal("WORKFLOW_MISMATCH", "the application's token sees its own workflow only");
      const { total, activities } = await queryActivities(sql, {
        tenantId: caller.tenantId,
        test: caller.test,
        processId,
        userId,
        keyword: parameters.keyword,
        from: range?.from,
        to: range?.to,
        appId,
        categories: parameters.categories,
        levels: parameters.levels,
        withoutHidden: !caller.sys,
        start: parameters.start,
        limit: parameters.limit,
      });
      return { entities: activities, total };
    },
  );
  return app;
}
