import type { Queryable } from "../../runtime/database.ts";
import type { CountedProcess, HourDelta } from "./statistics-deltas.ts";

/** The counted processes among `processIds`. */
export async function countedProcesses(
  sql: Queryable,
  processIds: readonly string[],
): Promise<Map<string, CountedProcess>> {
  if (processIds.length === 0) return new Map();
  const rows = await sql<CountedProcess[]>`
    select process_id as "processId", tenant_id as "tenantId", test, app_id as "appId",
           started_at as "startedAt", hour, status
    from workflow_stats_processes where process_id = any(${processIds as string[]}::uuid[])`;
  return new Map(rows.map((row) => [row.processId, row]));
}

/** The app of each of the processes. */
export async function appsOfProcesses(
  sql: Queryable,
  processIds: readonly string[],
): Promise<Map<string, string>> {
  if (processIds.length === 0) return new Map();
  const rows = await sql<{ id: string; appId: string }[]>`
    select id, app_id as "appId" from workflow_processes where id = any(${processIds as string[]}::uuid[])`;
  return new Map(rows.map((row) => [row.id, row.appId]));
}

/** The app and assignment time of each of the tasks. */
export async function tasksHandled(
  sql: Queryable,
  taskIds: readonly string[],
): Promise<Map<string, { appId: string; assignedAt: Date }>> {
  if (taskIds.length === 0) return new Map();
  const rows = await sql<{ id: string; appId: string; assignedAt: Date }[]>`
    select t.id, p.app_id as "appId", t.assigned_at as "assignedAt"
    from workflow_tasks t join workflow_processes p on p.id = t.process_id
    where t.id = any(${taskIds as string[]}::uuid[])`;
  return new Map(rows.map((row) => [row.id, { appId: row.appId, assignedAt: row.assignedAt }]));
}

/** Writes the batch's new and changed counted processes in one statement. */
export async function saveCountedProcesses(
  sql: Queryable,
  processes: readonly CountedProcess[],
): Promise<void> {
  if (processes.length === 0) return;
  const rows = processes.map((process) => ({
    ...process,
    startedAt: process.startedAt.toISOString(),
    hour: process.hour.toISOString(),
  }));
  await sql`
    insert into workflow_stats_processes (process_id, tenant_id, test, app_id, started_at, hour, status)
    select r."processId", r."tenantId", r.test, r."appId", r."startedAt", r.hour, r.status
    from jsonb_to_recordset(${sql.json(rows as never)})
      as r("processId" uuid, "tenantId" uuid, test boolean, "appId" uuid, "startedAt" timestamptz, hour timestamptz, status text)
    on conflict (process_id) do update set status = excluded.status`;
}

/** Adds the batch's sums to their hourly buckets in one statement. */
export async function addToHours(sql: Queryable, deltas: readonly HourDelta[]): Promise<void> {
  if (deltas.length === 0) return;
  const rows = deltas.map((delta) => ({ ...delta, hour: delta.hour.toISOString() }));
  await sql`
    insert into workflow_stats_hours as h (tenant_id, test, app_id, hour, started, running, suspended, ended_done,
                                           ended_killed, completed, killed, todo_handled, todo_wait_seconds)
    select r."tenantId", r.test, r."appId", r.hour, r.started, r.running, r.suspended, r."endedDone",
           r."endedKilled", r.completed, r.killed, r."todoHandled", r."todoWaitSeconds"
    from jsonb_to_recordset(${sql.json(rows as never)}) as r(
      "tenantId" uuid, test boolean, "appId" uuid, hour timestamptz, started int, running int, suspended int,
      "endedDone" int, "endedKilled" int, completed int, killed int, "todoHandled" int, "todoWaitSeconds" bigint)
    order by 1, 2, 3, 4
    on conflict (tenant_id, test, app_id, hour) do update set
      started = h.started + excluded.started, running = h.running + excluded.running,
      suspended = h.suspended + excluded.suspended, ended_done = h.ended_done + excluded.ended_done,
      ended_killed = h.ended_killed + excluded.ended_killed, completed = h.completed + excluded.completed,
      killed = h.killed + excluded.killed, todo_handled = h.todo_handled + excluded.todo_handled,
      todo_wait_seconds = h.todo_wait_seconds + excluded.todo_wait_seconds`;
}

/**
 * Makes the statistics subscriber's batch and the history's batch take turns, until the
 * transaction ends: each then reads the processes counted after the other's writes committed, so a
 * process is counted by whichever gets to it first, and once.
 */
export async function takeTurnCounting(tx: Queryable): Promise<void> {
  await tx`select pg_advisory_xact_lock(7301038)`;
}
