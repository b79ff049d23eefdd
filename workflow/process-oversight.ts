import { ErrorCode, PlatformError } from "../contracts/errors.ts";
import { WorkflowRefusal } from "../contracts/workflow-errors.ts";
import { userIdsByCodes } from "../directory/positions.ts";
import { type Queryable, type Sql, transactionRetryingDeadlocks } from "../runtime/database.ts";
import { workflowAppByIdOrCode } from "./app-store.ts";
import { actOnProcess } from "./process-actions.ts";
import { commandTask } from "./process-commands.ts";
import {
  type ProcessFilter,
  type ProcessLine,
  type ProcessOverview,
  processRowById,
  readProcessOverview,
  type StuckKey,
  type StuckTask,
  searchProcesses,
  staleTodos,
  unhandledTodos,
} from "./process-oversight-store.ts";
import type { ProcessStatus } from "./process-state.ts";
import { tenantNamed } from "./workflow-admin.ts";

export type { ProcessLine, ProcessOverview, StuckKey, StuckTask } from "./process-oversight-store.ts";

/** What the process page reads at most: open tasks, handlers of each, newest activities, activities counted. */
export const OVERVIEW_BOUNDS = { openTasks: 100, handlers: 20, activities: 50, activitiesCounted: 10_000 };

/** A search of a tenant's processes as an operator asks it. */
export interface ProcessSearch {
  domain: string;
  test: boolean;
  entry?: number | undefined;
  owner?: string | undefined;
  app?: string | undefined;
  status?: ProcessStatus | undefined;
}

/** A page of a tenant's processes, newest first, with one more when there is a next page. */
export async function findProcesses(
  sql: Queryable,
  search: ProcessSearch,
  before: number | null,
  limit: number,
): Promise<ProcessLine[]> {
  const tenant = await tenantNamed(sql, search.domain);
  const filter: ProcessFilter = {
    tenantId: tenant.id,
    test: search.test,
    entry: search.entry,
    ownerAccount: search.owner,
    status: search.status,
  };
  if (search.app !== undefined) {
    const app = await workflowAppByIdOrCode(sql, tenant.id, search.app);
    if (!app) return [];
    filter.appId = app.id;
  }
  return searchProcesses(sql, filter, before, limit + 1);
}

/** A process by its GUID, in whichever tenant: what the operator's page shows of it. */
export async function processOverview(sql: Queryable, id: string): Promise<ProcessOverview> {
  const overview = await readProcessOverview(sql, id, OVERVIEW_BOUNDS);
  if (!overview) throw new PlatformError(ErrorCode.NotFound, `no process ${id}`);
  return overview;
}

/** The operator's lifecycle actions on a process. */
export const OPERATOR_ACTIONS = ["suspend", "resume", "kill"] as const;
export type OperatorAction = (typeof OPERATOR_ACTIONS)[number];

/**
 * Suspends, resumes or kills a process as an administrator's token does (4.5), recorded as done
 * by the system rather than by a user.
 */
export function actAsOperator(sql: Sql, id: string, action: OperatorAction, remark: string | undefined) {
  return transactionRetryingDeadlocks(sql, async (tx) => {
    const process = await processRowById(tx, id);
    if (!process) throw new WorkflowRefusal("PROCESS_NOT_FOUND", `no process ${id}`);
    await actOnProcess(tx, { administrator: true, userId: undefined }, process, { action, remark });
  });
}

/** Gives a to-do task of the process to the accounts named instead (4.7), recorded as the system's. */
export function reassignAsOperator(sql: Sql, processId: string, taskId: string, accounts: string[]) {
  return transactionRetryingDeadlocks(sql, async (tx) => {
    const process = await processRowById(tx, processId);
    if (!process) throw new WorkflowRefusal("PROCESS_NOT_FOUND", `no process ${processId}`);
    const named = [...new Set(accounts)];
    const users = await userIdsByCodes(tx, process.tenantId, named);
    if (users.length !== named.length) {
      // Asked one by one only to name what is missing: an operator's form names a few accounts.
      const found = await Promise.all(named.map((code) => userIdsByCodes(tx, process.tenantId, [code])));
      const missing = named.filter((_, i) => found[i]!.length === 0);
      throw new WorkflowRefusal("USER_NOT_FOUND", `not an enabled user of the tenant: ${missing.join(", ")}`);
    }
    const { process: after } = await commandTask(tx, process.tenantId, process.test, taskId, {
      kind: "reassign",
      task: taskId,
      candidates: users,
      user: null,
    });
    if (after.id !== process.id)
      throw new WorkflowRefusal("TASK_NOT_FOUND", `no task ${taskId} in the process`);
  });
}

/** Which stuck to-dos: those waiting longer than a threshold, or those nobody can handle. */
export type StuckKind = "stale" | "unhandled";

/** A page of a tenant's stuck to-do tasks, oldest first, with one more when there is a next page. */
export async function stuckTodos(
  sql: Queryable,
  query: { domain: string; test: boolean; kind: StuckKind; olderThanDays: number; now: Date },
  after: StuckKey,
  limit: number,
): Promise<StuckTask[]> {
  const tenant = await tenantNamed(sql, query.domain);
  const scope = { tenantId: tenant.id, test: query.test };
  if (query.kind === "unhandled") return unhandledTodos(sql, scope, after, limit + 1);
  const since = new Date(query.now.getTime() - query.olderThanDays * 86_400_000);
  return staleTodos(sql, scope, since, after, limit + 1);
}
