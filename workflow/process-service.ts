import { createHash } from "node:crypto";
import { WorkflowRefusal } from "../contracts/workflow-errors.ts";
import { userIdsByCodes } from "../directory/positions.ts";
import { type Queryable, transaction, transactionRetryingDeadlocks } from "../runtime/database.ts";
import { queryActivities } from "./activity-store.ts";
import { parseFormData } from "./form-data.ts";
import { namedOrOwnAppId, ownAppId } from "./own-workflow.ts";
import { loadProcess, loadProcessWithParts, requireAccess, requireOwnWorkflow } from "./process-access.ts";
import { actOnProcess, type ProcessActionInput } from "./process-actions.ts";
import { commandTask, startProcess, submitTask } from "./process-commands.ts";
import {
  isAncestor,
  type ProcessRow,
  processByRef,
  readProcess as readProcessRow,
  todoUsersOfTask,
  tookPart,
} from "./process-store.ts";
import {
  processView,
  profiles,
  type TaskView,
  taskViewById,
  taskViewOf,
  type ViewOptions,
} from "./process-views.ts";
import { parseRange } from "./ranges.ts";
import { claimStartKey, setStartKeyProcess, startOfKey } from "./start-key-store.ts";
import type { WorkflowCaller } from "./workflow-caller.ts";
import type { WorkflowDeps } from "./workflow-deps.ts";
import { namedUser } from "./workflow-tenants.ts";

function views(deps: WorkflowDeps, extra: Partial<ViewOptions> = {}): ViewOptions {
  return {
    apiBase: deps.apiBase,
    showHidden: false,
    includeExecutors: false,
    includeAncestors: false,
    ...extra,
  };
}

export interface StartInput {
  assignTo?: string | undefined;
  secureURIExpire?: number | undefined;
  code?: string | undefined;
  entrance?: string | undefined;
  businessId?: string | undefined;
  data?: unknown;
  /** Beyond spec 001: the same key sent again answers the process its first start made. */
  idempotencyKey?: string | undefined;
}

/**
 * 3.2: starts a process of the caller's workflow for its owner; with `assignTo` and
 * `secureURIExpire`, the first task comes with a link that opens it.
 */
export async function startProcessFor(deps: WorkflowDeps, caller: WorkflowCaller, input: StartInput) {
  const { sql } = deps;
  const code = caller.workflowCode ?? input.code;
  if (caller.workflowCode && input.code && input.code !== caller.workflowCode) {
    throw new WorkflowRefusal(
      "WORKFLOW_MISMATCH",
      `the application starts its own workflow ${caller.workflowCode} only`,
    );
  }
  if (!code) throw new WorkflowRefusal("APP_NOT_FOUND", "code: name the workflow to start");
  if (caller.sys && !caller.userId)
    throw new WorkflowRefusal("USER_NOT_FOUND", "userId: a sys token names the owner");
  const data = parseFormData(input.data, deps.jsonMaxDepth);
  const workflowApp = await deps.apps.get(caller.tenantId, code, caller.test);
  if (!workflowApp) throw new WorkflowRefusal("APP_NOT_FOUND", `no workflow ${code}`);
  const firstAssignee =
    caller.sys && input.assignTo ? await namedUser(sql, caller.tenantId, input.assignTo) : undefined;
  const issueLink = (db: Queryable, task: { id: string; uri: string }, processId: string) =>
    firstAssignee && input.secureURIExpire
      ? deps.taskLinks.issue(db, {
          taskId: task.id,
          processId,
          tenantId: caller.tenantId,
          test: caller.test,
          userId: firstAssignee,
          applicationId: caller.token.clientId,
          ttlSeconds: input.secureURIExpire,
        })
      : undefined;
  const answer = async (db: Queryable, process: ProcessRow, task: TaskView) => {
    const link = await issueLink(db, task, process.id);
    return [process.entry, 1, link ? `${task.uri}&access_token=${link}` : task.uri, task];
  };
  const start = async (db: Queryable) => {
    const started = await startProcess(db, {
      tenantId: caller.tenantId,
      test: caller.test,
      app: workflowApp,
      ownerId: caller.userId!,
      actualUserId: null,
      firstAssignee,
      entrance: input.entrance,
      data,
      businessId: input.businessId ?? null,
      starter: caller.userId,
    });
    const task = await taskViewOf(db, started.process, started.firstTask, started.people, views(deps));
    return { process: started.process, answer: await answer(db, started.process, task) };
  };
  if (input.idempotencyKey) {
    const key = {
      tenantId: caller.tenantId,
      test: caller.test,
      clientId: caller.token.clientId,
      key: input.idempotencyKey,
    };
    const digest = startDigest(code, caller.userId!, firstAssignee, input, data);
    return transaction(sql, async (tx) => {
      if (await claimStartKey(tx, key, digest)) {
        const started = await start(tx);
        await setStartKeyProcess(tx, key, started.process.id);
        return started.answer;
      }
      const prior = await startOfKey(tx, key);
      if (prior?.requestDigest !== digest || !prior.processId)
        throw new WorkflowRefusal(
          "IDEMPOTENCY_KEY_REUSED",
          "Idempotency-Key: the key was sent with another start; use a new key for each start",
        );
      const process = await readProcessRow(tx, caller.tenantId, caller.test, { id: prior.processId });
      const first = process?.state.tasks[0];
      if (!process || !first) throw new WorkflowRefusal("PROCESS_NOT_FOUND", `no process ${prior.processId}`);
      return answer(tx, process.process, await taskViewById(tx, process.process, first.id, views(deps)));
    });
  }
  // The start writes its process in one statement, atomic on its own; a task link is a second
  // write, and the two commit together.
  const started = await (firstAssignee && input.secureURIExpire ? transaction(sql, start) : start(sql));
  return started.answer;
}

/** What a start asks, as a key's start is compared with the same key's next. */
function startDigest(
  code: string,
  owner: string,
  firstAssignee: string | undefined,
  input: StartInput,
  data: Record<string, unknown>,
): string {
  const asked = [code, owner, firstAssignee, input.entrance, input.businessId, input.secureURIExpire, data];
  return createHash("sha256").update(JSON.stringify(asked)).digest("base64url");
}

export interface HandleInput {
  actionId?: number | undefined;
  actionCode?: string | undefined;
  remark?: string | undefined;
  thing?: string | undefined;
  pickup?: string | undefined;
}

/** 3.1: handles a task once, as the caller (a user, or the system for a sys token). */
export async function handleTask(
  deps: WorkflowDeps,
  caller: WorkflowCaller,
  taskId: string,
  input: HandleInput,
) {
  if (!/^[0-9a-f-]{36}$/i.test(taskId)) throw new WorkflowRefusal("TASK_NOT_FOUND", `no task ${taskId}`);
  const { sql } = deps;
  const { process, task, people } = await submitTask(sql, {
    tenantId: caller.tenantId,
    test: caller.test,
    taskId,
    actor: caller.userId ? { user: caller.userId } : { system: true },
    sys: caller.sys,
    ...input,
    appId: await ownAppId(sql, caller),
  });
  return taskViewOf(sql, process, task, people, views(deps));
}

export interface ReadInput {
  visibility?: "all" | "default" | undefined;
  entryRef?: number | undefined;
  includeAncestors?: boolean | undefined;
  includeExecutors?: boolean | undefined;
}

/** 2.8: a process the caller may see, or a sub-process of an ancestor it took part in. */
export async function readProcess(deps: WorkflowDeps, caller: WorkflowCaller, id: string, input: ReadInput) {
  const { sql } = deps;
  const read = await loadProcessWithParts(sql, caller, id);
  const { process } = read;
  if (input.entryRef !== undefined && !caller.sys && caller.userId) {
    // A sub-process is visible to whoever took part in the ancestor it names, through a token
    // that may see its workflow.
    await requireOwnWorkflow(sql, caller, process);
    const ancestor = await processByRef(sql, caller.tenantId, caller.test, { entry: input.entryRef });
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
  return processView(
    sql,
    read,
    views(deps, {
      showHidden: input.visibility === "all" && caller.sys,
      includeAncestors: input.includeAncestors ?? false,
      includeExecutors: input.includeExecutors ?? false,
    }),
  );
}

/** 3.3 and 4.5: an action on a process; `userId` `*` of a sys token dismisses every user's copy. */
export function actOnProcessFor(
  deps: WorkflowDeps,
  caller: WorkflowCaller,
  id: string,
  input: Omit<ProcessActionInput, "everyone"> & { userId?: string | undefined },
) {
  return transactionRetryingDeadlocks(deps.sql, async (tx) => {
    const process = await loadProcess(tx, caller, id);
    await requireAccess(tx, caller, process);
    const everyone = caller.sys && input.userId === "*";
    await actOnProcess(
      tx,
      { administrator: caller.sys, userId: everyone ? undefined : caller.userId },
      process,
      { ...input, everyone },
    );
    return processView(tx, await loadProcessWithParts(tx, caller, id), views(deps));
  });
}

/** 4.8: takes a handled task back while nothing it led to has been handled. */
export function withdrawTask(deps: WorkflowDeps, caller: WorkflowCaller, taskId: string) {
  return transactionRetryingDeadlocks(deps.sql, async (tx) => {
    const { process, task, people } = await commandTask(
      tx,
      caller.tenantId,
      caller.test,
      taskId,
      { kind: "withdraw", task: taskId, user: caller.userId! },
      await ownAppId(tx, caller),
      caller.userId!,
    );
    return taskViewOf(tx, process, task, people, views(deps));
  });
}

/** 4.6: the profiles of who may handle a task, delegates included. */
export async function taskCandidates(deps: WorkflowDeps, caller: WorkflowCaller, taskId: string) {
  const { sql } = deps;
  const appId = await ownAppId(sql, caller);
  const users = await profiles(sql, await todoUsersOfTask(sql, caller.tenantId, caller.test, taskId, appId));
  return [...users.values()];
}

/** 4.7: replaces who may handle a to-do task with the accounts or ids named. */
export function setTaskCandidates(
  deps: WorkflowDeps,
  caller: WorkflowCaller,
  taskId: string,
  named: string[],
) {
  return transactionRetryingDeadlocks(deps.sql, async (tx) => {
    const users = await userIdsByCodes(tx, caller.tenantId, named);
    if (users.length !== named.length)
      throw new WorkflowRefusal("USER_NOT_FOUND", "users names a user who does not exist");
    const { process, task, people } = await commandTask(
      tx,
      caller.tenantId,
      caller.test,
      taskId,
      { kind: "reassign", task: taskId, candidates: users, user: caller.userId ?? null },
      await ownAppId(tx, caller),
    );
    return taskViewOf(tx, process, task, people, views(deps));
  });
}

export interface ActivityInput {
  userId?: string | undefined;
  keyword?: string | undefined;
  timestamps?: string | undefined;
  app?: string | undefined;
  categories?: string[] | undefined;
  levels?: string[] | undefined;
  start: number;
  limit: number;
}

/** 4.13: activity records of a process the caller may see, or (`*`) of every process, newest first. */
export async function processActivities(
  deps: WorkflowDeps,
  caller: WorkflowCaller,
  id: string,
  input: ActivityInput,
) {
  const { sql } = deps;
  let processId: string | undefined;
  let userId = input.userId && caller.sys ? caller.userId : undefined;
  if (id !== "*") {
    const process = await loadProcess(sql, caller, id);
    await requireAccess(sql, caller, process);
    processId = process.id;
  } else if (!caller.sys) {
    userId = caller.userId;
  }
  const range = input.timestamps ? parseRange(input.timestamps, "timestamps") : undefined;
  const appId = await namedOrOwnAppId(
    sql,
    caller,
    input.app,
    "the application's token sees its own workflow only",
  );
  return queryActivities(sql, {
    tenantId: caller.tenantId,
    test: caller.test,
    processId,
    userId,
    keyword: input.keyword,
    from: range?.from,
    to: range?.to,
    appId,
    categories: input.categories,
    levels: input.levels,
    withoutHidden: !caller.sys,
    start: input.start,
    limit: input.limit,
  });
}
