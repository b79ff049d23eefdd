import type postgres from "postgres";
import type { Queryable } from "../runtime/database.ts";
import { permittedAppIds, startAllowed } from "./access-grant-store.ts";
import { type AppAccess, permissionsGranting } from "./app-access.ts";

/**
 * The app lists of spec 001 (2.1, 4.3, 4.10) and the process lists read by app (4.4, 4.11). Every
 * query names the tenant and the data mode; a Workflow application's token (`appCode`) sees its own
 * workflow only.
 */

/** Most apps a list without paging answers (2.1, 4.3). */
export const MAX_APPS = 1000;

export interface ListScope {
  tenantId: string;
  test: boolean;
  /** A Workflow application's own workflow: nothing else is listed. */
  appCode?: string | undefined;
  /** The API base `uri`s are written under. */
  apiBase: string;
  /** The user whose starts count: the lists of startable apps keep those the user may start. */
  userId?: string | undefined;
}

export interface AppListView {
  id: string;
  name: string;
  uri: string;
  code: string;
  abbreviation: string | null;
  description: string | null;
  tags: string;
  icon: string | null;
  palette: string | null;
  department: string | null;
  contact: string | null;
  recommend: number;
  rating: number;
  rated: number;
  visible: boolean;
  ready: boolean;
  system: string;
}

type Fragment = postgres.Fragment;

/**
 * Spec 001's `app` for each app the condition keeps: `ready` only when a version is online for the
 * data mode (what 3.2 needs), `rating` 0-100 and `rated` from the rated processes of that mode.
 */
async function appRows(
  sql: Queryable,
  scope: ListScope,
  condition: (startable: Fragment) => Fragment,
  order: Fragment,
  page: { start: number; limit: number },
): Promise<{ total: number; apps: AppListView[] }> {
  const online = scope.test ? sql`online_test` : sql`online_formal`;
  const startable = sql`a.ready and a.visible and v.id is not null
    and ${scope.userId ? startAllowed(sql, scope.tenantId, scope.test, sql`a.id`, scope.userId) : sql`true`}`;
  const rows = await sql<(AppListView & { total: number })[]>`
    select a.id, a.name, a.code, a.abbreviation, a.description, a.tags, a.icon, a.palette, a.department,
           a.contact, a.recommendation as recommend, coalesce(r.rating, 0) as rating, coalesce(r.rated, 0) as rated,
           a.visible, a.ready and v.id is not null as ready, '' as system, count(*) over ()::int as total
    from workflow_apps a
    left join lateral (
      select id from workflow_versions where app_id = a.id and ${online} order by number desc limit 1
    ) v on true
    left join lateral (
      select round(avg(rating) * 20)::int as rating, count(*)::int as rated from workflow_processes
      where app_id = a.id and test = ${scope.test} and rating is not null
    ) r on true
    where a.tenant_id = ${scope.tenantId}
      and ${scope.appCode ? sql`a.code = ${scope.appCode}` : sql`true`}
      and ${condition(startable)}
    order by ${order}
    limit ${page.limit} offset ${page.start}`;
  // A page past the end has no row to carry the total: count it.
  const total =
    rows[0]?.total ??
    (page.start > 0 ? (await appRows(sql, scope, condition, order, { start: 0, limit: 1 })).total : 0);
  return {
    total,
    apps: rows.map(({ total: _total, ...app }) => ({ ...app, uri: `${scope.apiBase}/app/${app.code}` })),
  };
}

/** 2.1: the apps a user may start: ready, visible, with a version online for the data mode, and the user a starter. */
export async function startableApps(sql: Queryable, scope: ListScope) {
  return appRows(sql, scope, (startable) => startable, sql`a.name, a.code`, { start: 0, limit: MAX_APPS });
}

/** 4.3: the apps the user administers (`admin`), or may view (`guest`: administered ones too). */
export async function permittedApps(sql: Queryable, scope: ListScope, userId: string, access: AppAccess) {
  return appRows(
    sql,
    scope,
    () =>
      sql`a.id in (${permittedAppIds(sql, scope.tenantId, scope.test, userId, permissionsGranting(access))})`,
    sql`a.name, a.code`,
    { start: 0, limit: MAX_APPS },
  );
}

/** 4.10: startable apps whose `recommendation` is above 0, highest first. */
export async function recommendedApps(
  sql: Queryable,
  scope: ListScope,
  page: { start: number; limit: number },
) {
  return appRows(
    sql,
    scope,
    (startable) => sql`${startable} and a.recommendation > 0`,
    sql`a.recommendation desc, a.name, a.code`,
    page,
  );
}

/** A process as the lists answer it: the header, its app and owner, without tasks. */
export interface ProcessListView {
  id: string;
  name: string;
  uri: string;
  tags: string;
  entry: number;
  create: number;
  update: number;
  sort: number;
  app: { id: string; name: string; code: string; tags: string };
  owner: { id: string; name: string; account: string; email: string | null; phone: string | null };
  status: string;
  priority: string;
  rating: number | null;
  review: string | null;
  milestone: { name: string; percent: number } | null;
}

/** A page of processes the condition keeps, with the exact total; `sort` is the time ordered by. */
async function processRows(
  sql: Queryable,
  scope: ListScope,
  condition: Fragment,
  order: "create" | "update",
  page: { start: number; limit: number },
): Promise<{ total: number; processes: ProcessListView[] }> {
  const time = order === "create" ? sql`p.created_at` : sql`p.updated_at`;
  const rows = await sql<(Omit<ProcessListView, "uri"> & { total: number })[]>`
    select p.id, p.name, p.tags, p.entry::float8 as entry,
           extract(epoch from p.created_at)::bigint::float8 as create,
           extract(epoch from p.updated_at)::bigint::float8 as update,
           extract(epoch from ${time})::bigint::float8 as sort,
           json_build_object('id', a.id, 'name', a.name, 'code', a.code, 'tags', a.tags) as app,
           json_build_object('id', u.id, 'name', u.name, 'account', u.account, 'email', u.email, 'phone', u.phone) as owner,
           p.status, p.priority, p.rating, p.review, p.milestone, count(*) over ()::int as total
    from workflow_processes p
    join workflow_apps a on a.id = p.app_id
    join users u on u.id = p.owner_id
    where p.tenant_id = ${scope.tenantId} and p.test = ${scope.test}
      and ${scope.appCode ? sql`a.code = ${scope.appCode}` : sql`true`}
      and ${condition}
    order by ${time} desc, p.entry desc
    limit ${page.limit} offset ${page.start}`;
  // A page past the end has no row to carry the total: count it.
  const total =
    rows[0]?.total ??
    (page.start > 0 ? (await processRows(sql, scope, condition, order, { start: 0, limit: 1 })).total : 0);
  return {
    total,
    processes: rows.map(({ total: _total, ...process }) => ({
      ...process,
      uri: `${scope.apiBase}/process/${process.entry}`,
    })),
  };
}

/** 4.4: processes of the apps the user administers or may view, newest first; archived ones left out. */
export async function permittedProcesses(
  sql: Queryable,
  scope: ListScope,
  userId: string,
  access: AppAccess,
  page: { start: number; limit: number },
) {
  return processRows(
    sql,
    scope,
    sql`not p.archived and p.app_id in (
          ${permittedAppIds(sql, scope.tenantId, scope.test, userId, permissionsGranting(access))})`,
    "create",
    page,
  );
}

/** 4.11: the rated processes of an app, most recently changed first. */
export async function ratedProcesses(
  sql: Queryable,
  scope: ListScope,
  appId: string,
  page: { start: number; limit: number },
) {
  return processRows(sql, scope, sql`p.app_id = ${appId} and p.rating is not null`, "update", page);
}
