import type postgres from "postgres";
import type { Queryable } from "../../runtime/database.ts";
import type { CountedProcess, HourDelta, TodoTimes } from "./statistics-deltas.ts";

/** The counted processes among `processIds`. */
export async function countedProcesses(
  sql: Queryable,
  processIds: readonly string[],
): Promise<Map<string, CountedProcess>> {
  if (processIds.length === 0) return new Map();
  const rows = await sql<CountedProcess[]>`
    select process_id as "processId", tenant_id as "tenantId", test, app_id as "appId",
           started_at as "startedAt", hour, status, history_todos as "historyTodos"
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

/** When each of the tasks became a to-do, and when it was handled. */
export async function todoTimes(sql: Queryable, taskIds: readonly string[]): Promise<Map<string, TodoTimes>> {
  if (taskIds.length === 0) return new Map();
  const rows = await sql<({ id: string } & TodoTimes)[]>`
    select id, assigned_at as "assignedAt", handled_at as "handledAt"
    from workflow_tasks where id = any(${taskIds as string[]}::uuid[])`;
  return new Map(rows.map(({ id, ...times }) => [id, times]));
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
    historyTodos: process.historyTodos?.length ? process.historyTodos : null,
  }));
  await sql`
    insert into workflow_stats_processes (process_id, tenant_id, test, app_id, started_at, hour, status, history_todos)
    select r."processId", r."tenantId", r.test, r."appId", r."startedAt", r.hour, r.status, r."historyTodos"
    from jsonb_to_recordset(${sql.json(rows as never)})
      as r("processId" uuid, "tenantId" uuid, test boolean, "appId" uuid, "startedAt" timestamptz, hour timestamptz,
           status text, "historyTodos" uuid[])
    on conflict (process_id) do update set status = excluded.status`;
}

/**
 * Adds the batch's sums to their hourly buckets and to the local days those hours are in, each
 * tenant's in its time zone, in one statement.
 */
export async function addToHours(
  sql: Queryable,
  deltas: readonly HourDelta[],
  timeZones: ReadonlyMap<string, string>,
): Promise<void> {
  if (deltas.length === 0) return;
  const rows = deltas.map((delta) => ({
    ...delta,
    hour: delta.hour.toISOString(),
    timeZone: timeZones.get(delta.tenantId) ?? "UTC",
  }));
  const sums = (bucket: postgres.Fragment) => sql`
    select r."tenantId", r.test, r."appId", ${bucket}, sum(r.started), sum(r.running), sum(r.suspended),
           sum(r."endedDone"), sum(r."endedKilled"), sum(r.completed), sum(r.killed), sum(r."todoHandled"),
           sum(r."todoWaitSeconds")
    from jsonb_to_recordset(${sql.json(rows as never)}) as r(
      "tenantId" uuid, test boolean, "appId" uuid, hour timestamptz, "timeZone" text, started int, running int,
      suspended int, "endedDone" int, "endedKilled" int, completed int, killed int, "todoHandled" int,
      "todoWaitSeconds" bigint)
    group by 1, 2, 3, 4 order by 1, 2, 3, 4`;
  const added = sql`
    started = b.started + excluded.started, running = b.running + excluded.running,
    suspended = b.suspended + excluded.suspended, ended_done = b.ended_done + excluded.ended_done,
    ended_killed = b.ended_killed + excluded.ended_killed, completed = b.completed + excluded.completed,
    killed = b.killed + excluded.killed, todo_handled = b.todo_handled + excluded.todo_handled,
    todo_wait_seconds = b.todo_wait_seconds + excluded.todo_wait_seconds`;
  const columns = sql`started, running, suspended, ended_done, ended_killed, completed, killed, todo_handled, todo_wait_seconds`;
  await sql`
    with hours as (
      insert into workflow_stats_hours as b (tenant_id, test, app_id, hour, ${columns})
      ${sums(sql`r.hour`)}
      on conflict (tenant_id, test, app_id, hour) do update set ${added}
    )
    insert into workflow_stats_days as b (tenant_id, test, app_id, day, ${columns})
    ${sums(sql`date_trunc('day', r.hour at time zone r."timeZone") at time zone r."timeZone"`)}
    on conflict (tenant_id, test, app_id, day) do update set ${added}`;
}

/**
 * Makes the statistics subscriber's batch and the history's batch take turns, until the
 * transaction ends: each then reads the processes counted after the other's writes committed, so a
 * process is counted by whichever gets to it first, and once.
 */
export async function takeTurnCounting(tx: Queryable): Promise<void> {
  await tx`select pg_advisory_xact_lock(7301038)`;
}
