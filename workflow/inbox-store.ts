import type postgres from "postgres";
import { WorkflowRefusal } from "../contracts/workflow-errors.ts";
import { joinFragments, type Queryable } from "../runtime/database.ts";
import { workflowAppByIdOrCode } from "./app-store.ts";
import type { ProcessCategory, ProcessFilters } from "./list-filters.ts";
import type { NumberRange } from "./ranges.ts";

/**
 * The user's lists: to-do tasks (2.3) from the to-do rows, processes (2.4-2.7) from the inbox rows
 * (0013_workflow_inbox.sql). Each reads one user's rows of one tenant and data mode, filters and
 * counts them, and only then reads the page's processes, apps and owners by primary key.
 */

type Fragment = postgres.Fragment;

/** Whose list, where: the tenant and data mode, and a Workflow application's own app. */
export interface InboxScope {
  tenantId: string;
  test: boolean;
  userId: string;
  /** A Workflow application's token lists its own workflow's processes only. */
  appCode?: string | undefined;
}

interface Person {
  id: string;
  name: string;
  account: string;
  email: string | null;
  phone: string | null;
}

interface AppRef {
  id: string;
  name: string;
  code: string;
  tags: string;
  description: string | null;
}

export interface InboxProcessRow {
  id: string;
  entry: number;
  name: string;
  tags: string;
  status: string;
  priority: string;
  rating: number | null;
  review: string | null;
  milestone: { name: string; percent: number } | null;
  states: string[];
  versionId: string;
  versionCreatedAt: Date;
  createdAt: Date;
  updatedAt: Date;
  readAt: Date | null;
  ccCreatedAt: Date | null;
  ccUpdatedAt: Date | null;
  sort: Date | null;
  app: AppRef;
  owner: Person | null;
  actualUser: Person | null;
}

export interface TodoRow {
  taskId: string;
  node: string;
  assignedAt: Date;
  expiresAt: Date | null;
  thing: boolean;
  entrustedBy: Person | null;
  process: {
    id: string;
    entry: number;
    name: string;
    tags: string;
    status: string;
    versionId: string;
    app: AppRef;
    owner: Person | null;
  };
}

const person = (alias: string) =>
  `case when ${alias}.id is null then null else json_build_object('id', ${alias}.id, 'name', ${alias}.name,
     'account', ${alias}.account, 'email', ${alias}.email, 'phone', ${alias}.phone) end`;
const APP = `json_build_object('id', a.id, 'name', a.name, 'code', a.code, 'tags', a.tags, 'description', a.description)`;

async function appIdOf(
  sql: Queryable,
  scope: InboxScope,
  app: string | undefined,
): Promise<string | undefined> {
  const wanted = [scope.appCode, app].filter((code): code is string => code !== undefined);
  let id: string | undefined;
  for (const code of wanted) {
    const found = await workflowAppByIdOrCode(sql, scope.tenantId, code);
    if (!found) throw new WorkflowRefusal("APP_NOT_FOUND", `no workflow ${code}`);
    if (id !== undefined && id !== found.id) {
      throw new WorkflowRefusal("WORKFLOW_MISMATCH", "the application's token lists its own workflow only");
    }
    id = found.id;
  }
  return id;
}

function and(sql: Queryable, conditions: Fragment[]): Fragment {
  return conditions.length > 0 ? joinFragments(sql, conditions, " and ") : sql`true`;
}

/** A range of Unix seconds over a time, both ends included. */
function timeRange(sql: Queryable, column: Fragment, range: NumberRange | undefined): Fragment[] {
  if (!range) return [];
  const conditions: Fragment[] = [];
  if (range.from !== undefined) conditions.push(sql`${column} >= to_timestamp(${range.from})`);
  if (range.to !== undefined) conditions.push(sql`${column} < to_timestamp(${range.to + 1})`);
  return conditions;
}

/** `ratings`: a negative bound stands for the unrated processes (`-1~-1` is exactly those). */
function ratingRange(sql: Queryable, range: NumberRange): Fragment {
  const from = range.from ?? Number.NEGATIVE_INFINITY;
  const to = range.to ?? Number.POSITIVE_INFINITY;
  const unrated = from < 0 ? sql`i.rating is null` : sql`false`;
  if (to < 0) return sql`(${unrated})`;
  const rated = sql`i.rating >= ${Math.max(from, 0)} ${Number.isFinite(to) ? sql`and i.rating <= ${to}` : sql``}`;
  return sql`(${unrated} or (${rated}))`;
}

function categoryCondition(sql: Queryable, category: ProcessCategory): Fragment {
  switch (category) {
    case "doing":
      return sql`(i.owner or i.handled) and i.status in ('doing', 'suspended')`;
    case "done":
      return sql`(i.owner or i.handled) and i.status in ('done', 'killed')`;
    case "completed":
      return sql`(i.owner or i.handled)`;
    case "unrated":
      return sql`i.owner and i.status in ('done', 'killed') and i.rating is null`;
    case "cc":
      return sql`i.cc`;
    case "entrusted":
      return sql`i.entrusted`;
    case "operator":
      return sql`i.handled`;
  }
}

/** The time `order` sorts by: a copy's latest copying in the cc list, else as spec 001's table says. */
function sortTime(sql: Queryable, category: ProcessCategory, filters: ProcessFilters): Fragment {
  switch (filters.order.field) {
    case "update":
      return sql`i.updated_at`;
    case "create":
      return sql`i.created_at`;
    case "action":
      return sql`i.action_at`;
    case "auto":
      return category === "cc"
        ? sql`i.cc_updated_at`
        : sql`case when i.owner then i.updated_at else coalesce(i.action_at, i.updated_at) end`;
  }
}

/** 2.4-2.7: a page of the user's processes of a category, with how many there are in all. */
export async function processList(
  sql: Queryable,
  scope: InboxScope,
  category: ProcessCategory,
  filters: ProcessFilters,
): Promise<{ total: number; processes: InboxProcessRow[] }> {
  const appId = await appIdOf(sql, scope, filters.app);
  const sort = sortTime(sql, category, filters);
  const conditions: Fragment[] = [categoryCondition(sql, category)];
  if (appId) conditions.push(sql`i.app_id = ${appId}`);
  if (filters.entry !== undefined) conditions.push(sql`i.entry = ${filters.entry}`);
  if (!filters.archive) conditions.push(sql`not i.archived`);
  conditions.push(...timeRange(sql, sql`i.created_at`, filters.timestamps));
  conditions.push(...timeRange(sql, sql`i.updated_at`, filters.lastUpdate));
  conditions.push(...timeRange(sql, sort, filters.orderTimes));
  if (filters.milestones?.from !== undefined) conditions.push(sql`i.milestone >= ${filters.milestones.from}`);
  if (filters.milestones?.to !== undefined) conditions.push(sql`i.milestone <= ${filters.milestones.to}`);
  if (filters.ratings) conditions.push(ratingRange(sql, filters.ratings));
  if (filters.statuses) conditions.push(sql`i.status = any(${filters.statuses}::text[])`);
  if (filters.states) conditions.push(sql`i.states && ${filters.states}::text[]`);
  if (filters.sep !== undefined) conditions.push(filters.sep ? sql`not i.owner` : sql`i.owner`);
  if (filters.thing !== undefined) conditions.push(sql`i.things = ${filters.thing}`);
  if (filters.unread !== undefined) {
    conditions.push(filters.unread ? sql`i.cc and i.read_at is null` : sql`i.cc and i.read_at is not null`);
  }
  const search = filters.terms.length > 0;
  if (search) {
    conditions.push(
      filters.fullText
        ? sql`s.words @@ any(array(select phraseto_tsquery('simple', workflow_search_words(t))
                                   from unnest(${filters.terms}::text[]) t))`
        : sql`s.text ilike any(${filters.terms.map((term) => `%${term.replace(/[\\%_]/g, "\\$&")}%`)}::text[])`,
    );
  }
  const direction = filters.order.descending ? sql`desc` : sql`asc`;
  const page = (start: number, limit: number) => sql<(InboxProcessRow & { total: number })[]>`
    with hit as (
      select i.process_id, i.states, i.created_at, i.updated_at, i.read_at, i.cc_created_at, i.cc_updated_at,
             ${sort} as sort, count(*) over () as total
      from workflow_inbox i
      ${search ? sql`join workflow_process_search s on s.process_id = i.process_id` : sql``}
      where i.user_id = ${scope.userId} and i.tenant_id = ${scope.tenantId} and i.test = ${scope.test}
        and ${and(sql, conditions)}
      order by sort ${direction} nulls last, i.process_id ${direction}
      limit ${limit} offset ${start})
    select p.id, p.entry::float8 as entry, p.name, p.tags, p.status, p.priority, p.rating, p.review, p.milestone,
           hit.states, p.version_id as "versionId", v.created_at as "versionCreatedAt", hit.created_at as "createdAt",
           hit.updated_at as "updatedAt", hit.read_at as "readAt", hit.cc_created_at as "ccCreatedAt",
           hit.cc_updated_at as "ccUpdatedAt", hit.sort, hit.total::int as total, ${sql.unsafe(APP)} as app,
           ${sql.unsafe(person("o"))} as owner, ${sql.unsafe(person("au"))} as "actualUser"
    from hit
    join workflow_processes p on p.id = hit.process_id
    join workflow_apps a on a.id = p.app_id
    join workflow_versions v on v.id = p.version_id
    left join users o on o.id = p.owner_id
    left join users au on au.id = p.actual_user_id
    order by hit.sort ${direction} nulls last, hit.process_id ${direction}`;
  const rows = await page(filters.start, filters.limit);
  const total = rows[0]?.total ?? (filters.start > 0 ? ((await page(0, 1))[0]?.total ?? 0) : 0);
  return { total, processes: rows.map(({ total: _total, ...row }) => row) };
}

export interface TodoOptions {
  /** Also the tasks entrusted to the user (delegation); otherwise their own only. */
  entrust: boolean;
  sep?: boolean | undefined;
  thing?: boolean | undefined;
  start: number;
  limit: number;
}

/**
 * 2.3: a page of the user's to-do tasks, newest first, with how many there are in all. Tasks of
 * suspended and archived processes have left the to-do rows' index.
 */
export async function todoList(
  sql: Queryable,
  scope: InboxScope,
  options: TodoOptions,
): Promise<{ total: number; tasks: TodoRow[] }> {
  const appId = await appIdOf(sql, scope, undefined);
  const conditions: Fragment[] = [];
  if (!options.entrust) conditions.push(sql`t.entrusted_by is null`);
  if (options.sep !== undefined) conditions.push(sql`t.sep = ${options.sep}`);
  if (options.thing !== undefined) conditions.push(sql`t.thing = ${options.thing}`);
  const page = (start: number, limit: number) => sql<(TodoRow & { total: number })[]>`
    with hit as (
      select t.task_id, t.process_id, t.entrusted_by, t.assigned_at, t.thing, count(*) over () as total
      from workflow_todo t
      where t.user_id = ${scope.userId} and t.test = ${scope.test} and t.tenant_id = ${scope.tenantId}
        and not t.suspended and not t.archived and ${and(sql, conditions)}
        ${appId ? sql`and exists (select from workflow_processes p where p.id = t.process_id and p.app_id = ${appId})` : sql``}
      order by t.assigned_at desc, t.task_id desc
      limit ${limit} offset ${start})
    select hit.task_id as "taskId", k.node, hit.assigned_at as "assignedAt", k.expires_at as "expiresAt", hit.thing,
           ${sql.unsafe(person("eb"))} as "entrustedBy", hit.total::int as total,
           json_build_object('id', p.id, 'entry', p.entry::float8, 'name', p.name, 'tags', p.tags, 'status', p.status,
                             'versionId', p.version_id, 'app', ${sql.unsafe(APP)}, 'owner', ${sql.unsafe(person("o"))}) as process
    from hit
    join workflow_tasks k on k.id = hit.task_id
    join workflow_processes p on p.id = hit.process_id
    join workflow_apps a on a.id = p.app_id
    left join users o on o.id = p.owner_id
    left join users eb on eb.id = hit.entrusted_by
    order by hit.assigned_at desc, hit.task_id desc`;
  const rows = await page(options.start, options.limit);
  const total = rows[0]?.total ?? (options.start > 0 ? ((await page(0, 1))[0]?.total ?? 0) : 0);
  return { total, tasks: rows.map(({ total: _total, ...row }) => row) };
}

/**
 * 2.12 `read`: every copy of the user's read, in both data modes (of the app `appId` only, when given).
 * Answers how many were unread.
 */
export async function readAllCopies(
  sql: Queryable,
  tenantId: string,
  userId: string,
  appId: string | undefined,
): Promise<number> {
  const rows = await sql`
    with copy as (
      update workflow_cc set read_at = now()
      where user_id = ${userId} and tenant_id = ${tenantId} and read_at is null
        ${appId ? sql`and process_id in (select id from workflow_processes where app_id = ${appId})` : sql``}
      returning process_id, read_at),
    inbox as (
      update workflow_inbox i set read_at = c.read_at from copy c
      where i.user_id = ${userId} and i.process_id = c.process_id)
    select process_id from copy`;
  return rows.length;
}
