import { WorkflowRefusal } from "../contracts/workflow-errors.ts";
import type { Sql } from "../runtime/database.ts";
import { processList, readAllCopies, type TodoOptions, todoList } from "./inbox-store.ts";
import { processListViews, todoViews } from "./inbox-views.ts";
import { type ListParameters, type ProcessCategory, processFilters } from "./list-filters.ts";
import { ownAppId } from "./own-workflow.ts";
import { profiles } from "./process-views.ts";
import { subjectOf, type WorkflowCaller } from "./workflow-caller.ts";
import type { WorkflowDeps } from "./workflow-deps.ts";

/** The lists need the database and the API base their `uri`s are written under. */
type InboxDeps = Pick<WorkflowDeps, "sql" | "apiBase">;

function scopeOf(caller: WorkflowCaller, userId: string) {
  return { tenantId: caller.tenantId, test: caller.test, userId, appCode: caller.workflowCode };
}

/** 2.3: the user's to-do tasks, newest first, each with its process and the user's profile. */
export async function todoTasks(
  deps: InboxDeps,
  caller: WorkflowCaller,
  named: string | undefined,
  options: TodoOptions,
) {
  const { sql } = deps;
  const userId = await subjectOf(deps.sql, caller, named);
  const [{ total, tasks }, people] = await Promise.all([
    todoList(sql, scopeOf(caller, userId), options),
    profiles(sql, [userId]),
  ]);
  return { total, tasks: await todoViews(sql, tasks, deps.apiBase, people.get(userId) ?? null) };
}

/** 2.4-2.7: the user's processes of a category, with every filter of spec 001's table. */
export async function processesOf(
  deps: InboxDeps,
  caller: WorkflowCaller,
  named: string | undefined,
  category: ProcessCategory,
  parameters: ListParameters,
) {
  const filters = processFilters(parameters);
  const userId = await subjectOf(deps.sql, caller, named);
  const { total, processes } = await processList(deps.sql, scopeOf(caller, userId), category, filters);
  return { total, processes: await processListViews(deps.sql, processes, deps.apiBase) };
}

/** 2.12: marks every copy to the user read (a Workflow application's token: its workflow's); how many were unread. */
export async function readEveryCopy(sql: Sql, caller: WorkflowCaller): Promise<number> {
  if (!caller.userId) throw new WorkflowRefusal("USER_NOT_FOUND", "a user token names the user");
  return readAllCopies(sql, caller.tenantId, caller.userId, await ownAppId(sql, caller));
}
