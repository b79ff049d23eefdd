import type { Queryable } from "../../runtime/database.ts";
import type { HandledTodo, HistoricProcess } from "./statistics-history.ts";

/** The counting of a tenant's history, as the admin API shows it. */
export interface HistoryProgress {
  requestedAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
  total: number | null;
  examined: number;
  counted: number;
}

/** A tenant whose history is still to be counted, the longest waiting first. */
export async function tenantAwaitingHistory(sql: Queryable): Promise<string | undefined> {
  const [row] = await sql<{ tenantId: string }[]>`
    select tenant_id as "tenantId" from workflow_stats_backfills
    where finished_at is null order by requested_at limit 1`;
  return row?.tenantId;
}

/**
 * Takes the tenant's counting for this transaction, unless another process has it (undefined then)
 * or it is finished; a counting not started yet is started, with the tenant's processes as its total.
 */
export async function takeHistory(
  tx: Queryable,
  tenantId: string,
): Promise<{ afterEntry: number } | undefined> {
  const [row] = await tx<{ afterEntry: string; startedAt: Date | null }[]>`
    select after_entry as "afterEntry", started_at as "startedAt" from workflow_stats_backfills
    where tenant_id = ${tenantId} and finished_at is null for update skip locked`;
  if (!row) return undefined;
  if (!row.startedAt) {
    await tx`
      update workflow_stats_backfills set started_at = now(),
        total = (select count(*) from workflow_processes where tenant_id = ${tenantId})
      where tenant_id = ${tenantId}`;
  }
  return { afterEntry: Number(row.afterEntry) };
}

/** The tenant's next `limit` processes by serial number after `afterEntry`. */
export async function historyBatch(
  tx: Queryable,
  tenantId: string,
  afterEntry: number,
  limit: number,
): Promise<(HistoricProcess & { entry: number })[]> {
  const rows = await tx<(HistoricProcess & { entry: string })[]>`
    select entry, id, tenant_id as "tenantId", test, status, created_at as "createdAt", ended_at as "endedAt"
    from workflow_processes
    where tenant_id = ${tenantId} and entry > ${afterEntry}
    order by entry limit ${limit}`;
  return rows.map((row) => ({ ...row, entry: Number(row.entry) }));
}

/** The to-dos handled by someone in each of the processes (not the steps a child process ended). */
export async function handledTodos(tx: Queryable, processIds: readonly string[]): Promise<HandledTodo[]> {
  if (processIds.length === 0) return [];
  return tx<HandledTodo[]>`
    select id as "taskId", process_id as "processId", assigned_at as "assignedAt", handled_at as "handledAt"
    from workflow_tasks
    where process_id = any(${processIds as string[]}::uuid[]) and status = 'done'
      and child_process_id is null and handled_at is not null`;
}

/**
 * Those of the tasks with a `todo.done` event the subscriber has yet to take: not numbered yet, or
 * after its cursor. Its batch waiting on the counting turn takes only events after the cursor this
 * reads, so none is missed; an event noted that the subscriber will never be offered costs nothing.
 */
export async function todosAwaitingSubscriber(
  tx: Queryable,
  taskIds: readonly string[],
  subscriber: string,
): Promise<Set<string>> {
  if (taskIds.length === 0) return new Set();
  const [cursor] = await tx<{ position: string }[]>`
    select position from workflow_outbox_cursors where subscriber = ${subscriber}`;
  // The cursor as a value, not a subquery: the plan then reads the outbox's few rows after it
  // through the position index, instead of every event of the retention window.
  const rows = await tx<{ taskId: string }[]>`
    select distinct task_id as "taskId" from workflow_events
    where type = 'todo.done' and task_id = any(${taskIds as string[]}::uuid[])
      and (position is null or position > ${cursor?.position ?? "0"})`;
  return new Set(rows.map((row) => row.taskId));
}

/** Records a batch gone through: the place reached, what it counted, and whether it was the last. */
export async function advanceHistory(
  tx: Queryable,
  tenantId: string,
  batch: { afterEntry: number; examined: number; counted: number; finished: boolean },
): Promise<void> {
  await tx`
    update workflow_stats_backfills set after_entry = ${batch.afterEntry},
      examined = examined + ${batch.examined}, counted = counted + ${batch.counted},
      finished_at = ${batch.finished ? tx`now()` : tx`null`}
    where tenant_id = ${tenantId}`;
}

/** The counting of the tenant's history, if statistics were ever switched on. */
export async function historyProgress(
  sql: Queryable,
  tenantId: string,
): Promise<HistoryProgress | undefined> {
  const [row] = await sql<HistoryProgress[]>`
    select requested_at as "requestedAt", started_at as "startedAt", finished_at as "finishedAt",
           total, examined, counted
    from workflow_stats_backfills where tenant_id = ${tenantId}`;
  return row;
}
