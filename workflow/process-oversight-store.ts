import type { Queryable } from "../runtime/database.ts";
import { PROCESS_COLUMNS, type ProcessRow } from "./process-store.ts";

/** The statements behind the operator's view of processes: search, one process, stuck to-dos. */

/** What the process search narrows by; every part optional but the tenant and mode. */
export interface ProcessFilter {
  tenantId: string;
  test: boolean;
  entry?: number | undefined;
  ownerAccount?: string | undefined;
  appId?: string | undefined;
  status?: string | undefined;
}

/** A process as a list shows it. */
export interface ProcessLine {
  id: string;
  entry: number;
  name: string;
  status: string;
  appCode: string;
  ownerAccount: string;
  ownerName: string;
  createdAt: Date;
  endedAt: Date | null;
}

/** At most `limit` processes of the filter, by serial number from the newest, below `before`. */
export async function searchProcesses(
  sql: Queryable,
  filter: ProcessFilter,
  before: number | null,
  limit: number,
): Promise<ProcessLine[]> {
  const owner =
    filter.ownerAccount === undefined
      ? sql``
      : sql`and p.owner_id = (select id from users where tenant_id = ${filter.tenantId} and account = ${filter.ownerAccount})`;
  return sql<ProcessLine[]>`
    select p.id, p.entry::float8 as entry, p.name, p.status, a.code as "appCode", u.account as "ownerAccount",
           u.name as "ownerName", p.created_at as "createdAt", p.ended_at as "endedAt"
    from workflow_processes p
    join workflow_apps a on a.id = p.app_id
    join users u on u.id = p.owner_id
    where p.tenant_id = ${filter.tenantId} and p.test = ${filter.test} ${owner}
      ${filter.entry === undefined ? sql`` : sql`and p.entry = ${filter.entry}`}
      ${filter.appId === undefined ? sql`` : sql`and p.app_id = ${filter.appId}`}
      ${filter.status === undefined ? sql`` : sql`and p.status = ${filter.status}`}
      ${before === null ? sql`` : sql`and p.entry < ${before}`}
    order by p.entry desc limit ${limit}`;
}

/** A person who may handle a task, and whether they can (a disabled account cannot). */
export interface HandlerLine {
  account: string;
  name: string;
  disabled: boolean;
}

/** A task not handled yet, with the first of those who may handle it. */
export interface OpenTask {
  id: string;
  node: string;
  status: string;
  assignedAt: Date;
  handlers: HandlerLine[];
  /** How many may handle it in all. */
  handlerCount: number;
}

/** An activity as the process page lists it. */
export interface ActivityLine {
  id: string;
  createdAt: Date;
  category: string;
  level: string;
  description: string;
  account: string | null;
}

/** One process as the operator sees it. */
export interface ProcessOverview {
  process: ProcessRow;
  tenantDomain: string;
  appCode: string;
  appName: string;
  versionNumber: number;
  ownerAccount: string;
  ownerName: string;
  /** The steps it has been through: nodes of its handled tasks. */
  passed: string[];
  open: OpenTask[];
  activities: ActivityLine[];
  /** How many activities it has, up to the bound it was counted to. */
  activityCount: number;
}

type Json<T> = {
  [K in keyof T]: T[K] extends Date ? string : T[K] extends Date | null ? string | null : T[K];
};

/**
 * A process with its app, owner, the steps it went through, its open tasks (at most `openTasks`,
 * each with its first `handlers`), its newest `activities` and how many it has (counted up to
 * `activitiesCounted`), in one round trip.
 */
export async function readProcessOverview(
  sql: Queryable,
  id: string,
  bounds: { openTasks: number; handlers: number; activities: number; activitiesCounted: number },
): Promise<ProcessOverview | undefined> {
  const [row] = await sql<
    (ProcessRow &
      Omit<ProcessOverview, "process" | "open" | "activities"> & {
        open: Json<OpenTask>[];
        activities: Json<ActivityLine>[];
      })[]
  >`
    select p.*, tn.domain as "tenantDomain", a.code as "appCode", a.name as "appName", v.number as "versionNumber",
      u.account as "ownerAccount", u.name as "ownerName",
      array(select distinct node from workflow_tasks where process_id = p.id and status = 'done') as passed,
      (select coalesce(json_agg(o order by o."assignedAt", o.id), '[]') from (
         select t.id, t.node, t.status, t.assigned_at as "assignedAt",
           (select coalesce(json_agg(h order by h.account), '[]') from (
              select hu.account, hu.name, hu.disabled from workflow_todo d join users hu on hu.id = d.user_id
              where d.task_id = t.id order by hu.account limit ${bounds.handlers}) h) as handlers,
           (select count(*)::int from workflow_todo d where d.task_id = t.id) as "handlerCount"
         from workflow_tasks t where t.process_id = p.id and t.status in ('todo', 'waiting', 'subprocess')
         order by t.assigned_at, t.id limit ${bounds.openTasks}) o) as open,
      (select coalesce(json_agg(x order by x.id::bigint desc), '[]') from (
         select w.id::text as id, w.created_at as "createdAt", w.category, w.level, w.description, wu.account
         from workflow_activities w left join users wu on wu.id = w.user_id
         where w.process_id = p.id order by w.id desc limit ${bounds.activities}) x) as activities,
      (select count(*)::int from (
         select 1 from workflow_activities where process_id = p.id limit ${bounds.activitiesCounted}) c) as "activityCount"
    from (select ${sql.unsafe(PROCESS_COLUMNS)} from workflow_processes where id = ${id}) p
    join tenants tn on tn.id = p."tenantId"
    join workflow_apps a on a.id = p."appId"
    join workflow_versions v on v.id = p."versionId"
    join users u on u.id = p."ownerId"`;
  if (!row) return undefined;
  const { tenantDomain, appCode, appName, versionNumber, ownerAccount, ownerName, passed, ...rest } = row;
  const { open, activities, activityCount, ...process } = rest;
  return {
    process,
    tenantDomain,
    appCode,
    appName,
    versionNumber,
    ownerAccount,
    ownerName,
    passed,
    open: open.map((task) => ({ ...task, assignedAt: new Date(task.assignedAt) })),
    activities: activities.map((activity) => ({ ...activity, createdAt: new Date(activity.createdAt) })),
    activityCount,
  };
}

/** A process row by its GUID alone, in whichever tenant and mode. */
export async function processRowById(sql: Queryable, id: string): Promise<ProcessRow | undefined> {
  const [row] = await sql<ProcessRow[]>`
    select ${sql.unsafe(PROCESS_COLUMNS)} from workflow_processes where id = ${id}`;
  return row;
}

/** A to-do task of a running process that has waited, as the stuck list shows it. */
export interface StuckTask {
  taskId: string;
  node: string;
  assignedAt: Date;
  processId: string;
  entry: number;
  processName: string;
  appCode: string;
  /** Those who may handle it and can (their account enabled). */
  able: number;
}

/** Where a stuck list's page starts: after this task in the order of waiting. */
export type StuckKey = { assignedAt: Date; taskId: string } | null;

/** The columns of a stuck list's line, of `workflow_tasks t` joined to its process `p` and app `a`. */
function stuckLine(sql: Queryable) {
  return sql`
    select t.id as "taskId", t.node, t.assigned_at as "assignedAt", p.id as "processId", p.entry::float8 as entry,
           p.name as "processName", a.code as "appCode",
           (select count(*)::int from workflow_todo d join users du on du.id = d.user_id
            where d.task_id = t.id and not du.disabled) as able
    from workflow_tasks t
    join workflow_processes p on p.id = t.process_id
    join workflow_apps a on a.id = p.app_id`;
}

function afterKey(sql: Queryable, after: StuckKey) {
  return after === null ? sql`` : sql`and (t.assigned_at, t.id) > (${after.assignedAt}, ${after.taskId})`;
}

/**
 * At most `limit` to-do tasks of the tenant's running processes waiting since before `since`,
 * oldest first: a range of the to-dos' index by waiting time, whatever else the platform holds.
 */
export function staleTodos(
  sql: Queryable,
  scope: { tenantId: string; test: boolean },
  since: Date,
  after: StuckKey,
  limit: number,
): Promise<StuckTask[]> {
  return sql<StuckTask[]>`
    ${stuckLine(sql)}
    where t.status = 'todo' and t.assigned_at < ${since} ${afterKey(sql, after)}
      and p.tenant_id = ${scope.tenantId} and p.test = ${scope.test} and p.status = 'doing'
    order by t.assigned_at, t.id
    limit ${limit}`;
}

/**
 * At most `limit` to-do tasks of the tenant's running processes nobody can handle (every user it
 * waits for disabled), oldest first. Such a task waits for a disabled user of the tenant, so the
 * search starts from those users' to-dos: few, where the tenant's open to-dos may be many and
 * nearly all handled by someone.
 */
export function unhandledTodos(
  sql: Queryable,
  scope: { tenantId: string; test: boolean },
  after: StuckKey,
  limit: number,
): Promise<StuckTask[]> {
  return sql<StuckTask[]>`
    select * from (
      ${stuckLine(sql)}
      where t.id in (
          select d.task_id from users u join workflow_todo d on d.user_id = u.id
          where u.tenant_id = ${scope.tenantId} and u.disabled and d.test = ${scope.test})
        and t.status = 'todo' ${afterKey(sql, after)} and p.status = 'doing'
    ) s
    where s.able = 0
    order by s."assignedAt", s."taskId"
    limit ${limit}`;
}

/** How many processes each version has, counted up to `cap`. */
export async function versionProcessCounts(
  sql: Queryable,
  versionIds: readonly string[],
  cap: number,
): Promise<Map<string, number>> {
  const rows = await sql<{ id: string; processes: number }[]>`
    select v.id, (select count(*)::int from (
      select 1 from workflow_processes where version_id = v.id limit ${cap}) c) as processes
    from unnest(${versionIds as string[]}::uuid[]) as v (id)`;
  return new Map(rows.map((row) => [row.id, row.processes]));
}
