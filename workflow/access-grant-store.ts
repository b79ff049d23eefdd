import type postgres from "postgres";
import { occupanciesMatching, positionPatternsHeldBy } from "../directory/positions.ts";
import type { Queryable } from "../runtime/database.ts";

/** Spec 001's access scopes. */
export const GRANT_SCOPES = ["position", "engine", "enterprise", "workflow", "instance", "code"] as const;
export type GrantScope = (typeof GRANT_SCOPES)[number];
export const PERMISSIONS = ["R", "W", "X"] as const;
export type Permission = (typeof PERMISSIONS)[number];

/** Whom a grant is given to: a user, or whoever holds a position (`*` for any department or post). */
export type Grantee = { userId: string } | { dept: string; post: string };

/** The object of a grant in one tenant and data mode. */
export interface GrantObject {
  tenantId: string;
  test: boolean;
  scope: GrantScope;
  object: string;
}

/** What the operator's lists name: accounts, and positions as `dept:post`. */
export interface GranteeList {
  accounts: string[];
  positions: { dept: string; post: string }[];
}

/** The source of the rows the operator's lists (bootstrap file, admin API, console) write. */
export const LISTED_SOURCE = "bootstrap";

type Fragment = postgres.PendingQuery<postgres.Row[]>;

const profileJson = `json_build_object('id', u.id, 'name', u.name, 'account', u.account, 'email', u.email, 'phone', u.phone)`;

/**
 * The grant `g` is the user's: given to them, or to a position they hold now (read through the
 * directory at each request, so a move into or out of a post counts at once).
 */
function heldBy(sql: Queryable, tenantId: string, userId: string): Fragment {
  return sql`(g.user_id = ${userId} or (g.user_id is null and (g.dept, g.post) in (
    ${positionPatternsHeldBy(sql, tenantId, userId)})))`;
}

/** Grants of the scope on the object (`object` a value or an SQL expression) with one of the permissions. */
function grantsOn(
  sql: Queryable,
  on: { tenantId: string; test: boolean; scope: GrantScope },
  object: string | Fragment,
  permissions: readonly Permission[],
): Fragment {
  return sql`g.tenant_id = ${on.tenantId} and g.test = ${on.test} and g.scope = ${on.scope}
    and g.object = ${object}::text and g.permission = any(${permissions as string[]}::text[])`;
}

/**
 * Whether the user may start the app (`appId` a value or an SQL expression): the app names no
 * starter (workflow X), or the user is one, by account or by a position they hold.
 */
export function startAllowed(
  sql: Queryable,
  tenantId: string,
  test: boolean,
  appId: string | Fragment,
  userId: string,
): Fragment {
  const on = { tenantId, test, scope: "workflow" as const };
  return sql`(not exists (select from access_grants g where ${grantsOn(sql, on, appId, ["X"])})
    or exists (select from access_grants g where ${grantsOn(sql, on, appId, ["X"])} and ${heldBy(sql, tenantId, userId)}))`;
}

/** The ids of the apps on which the user holds one of the permissions, as a subquery. */
export function permittedAppIds(
  sql: Queryable,
  tenantId: string,
  test: boolean,
  userId: string,
  permissions: readonly Permission[],
): Fragment {
  return sql`select g.object::uuid from access_grants g
    where g.tenant_id = ${tenantId} and g.test = ${test} and g.scope = 'workflow'
      and g.permission = any(${permissions as string[]}::text[]) and ${heldBy(sql, tenantId, userId)}`;
}

/** The ids of the apps on which the user holds one of the permissions. */
export async function permittedApps(
  sql: Queryable,
  tenantId: string,
  test: boolean,
  userId: string,
  permissions: readonly Permission[],
): Promise<string[]> {
  const rows = await sql<{ id: string }[]>`
    select distinct p.id::text as id from (${permittedAppIds(sql, tenantId, test, userId, permissions)}) as p(id)`;
  return rows.map((row) => row.id);
}

/** Whether the user holds one of the permissions on the object. */
export async function holdsGrant(
  sql: Queryable,
  on: GrantObject,
  userId: string,
  permissions: readonly Permission[],
): Promise<boolean> {
  const [row] = await sql<{ yes: boolean }[]>`
    select exists (select from access_grants g
                   where ${grantsOn(sql, on, on.object, permissions)} and ${heldBy(sql, on.tenantId, userId)}) as yes`;
  return row!.yes;
}

/** Whether the user may start the app. */
export async function mayStartApp(
  sql: Queryable,
  tenantId: string,
  test: boolean,
  appId: string,
  userId: string,
): Promise<boolean> {
  const [row] = await sql<
    { yes: boolean }[]
  >`select ${startAllowed(sql, tenantId, test, appId, userId)} as yes`;
  return row!.yes;
}

/**
 * Whether the user may manage (or, with R, read) a position: W on the enterprise (a tenant
 * administrator), or one of the permissions on the position or on a wildcard position covering it.
 */
export async function mayManagePosition(
  sql: Queryable,
  tenantId: string,
  test: boolean,
  userId: string,
  position: { dept: string; post: string },
  permissions: readonly Permission[],
): Promise<boolean> {
  const [row] = await sql<{ yes: boolean }[]>`
    select exists (
      select from access_grants g
      where g.tenant_id = ${tenantId} and g.test = ${test} and ${heldBy(sql, tenantId, userId)}
        and ((g.scope = 'enterprise' and g.object = ${tenantId}::text and g.permission = 'W')
          or (g.scope = 'position' and g.permission = any(${permissions as string[]}::text[])
              and split_part(g.object, ':', 1) in ('*', ${position.dept})
              and split_part(g.object, ':', 2) in ('*', ${position.post})))) as yes`;
  return row!.yes;
}

/** The users holding one of the permissions on the object, directly or through a position, by account. */
export async function grantHolders(sql: Queryable, on: GrantObject, permissions: readonly Permission[]) {
  return sql<{ id: string; name: string; account: string; email: string | null; phone: string | null }[]>`
    select u.id, u.name, u.account, u.email, u.phone from users u
    where u.tenant_id = ${on.tenantId} and not u.disabled and u.id in (
      select g.user_id from access_grants g where ${grantsOn(sql, on, on.object, permissions)} and g.user_id is not null
      union
      select h.user_id from access_grants g, lateral (
        select o.user_id from ${occupanciesMatching(sql, on.tenantId, sql`g.dept`, sql`g.post`)}) h
      where ${grantsOn(sql, on, on.object, permissions)} and g.user_id is null)
    order by u.account`;
}

/** Gives the grant; one given before stays as it was. */
export async function insertGrant(
  sql: Queryable,
  on: GrantObject,
  grantee: Grantee,
  permission: Permission,
  writer: { source: string; grantedBy: string | null },
): Promise<void> {
  const user = "userId" in grantee ? grantee.userId : null;
  const dept = "dept" in grantee ? grantee.dept : null;
  const post = "post" in grantee ? grantee.post : null;
  await sql`
    insert into access_grants (tenant_id, test, scope, object, user_id, dept, post, permission, source, granted_by)
    values (${on.tenantId}, ${on.test}, ${on.scope}, ${on.object}, ${user}, ${dept}, ${post}, ${permission},
            ${writer.source}, ${writer.grantedBy})
    on conflict do nothing`;
}

/** Takes the grantee's grants on the object away (only `permission`'s when given); how many went. */
export async function deleteGrants(
  sql: Queryable,
  on: GrantObject,
  grantee: Grantee,
  permission: Permission | undefined,
): Promise<number> {
  const who =
    "userId" in grantee
      ? sql`g.user_id = ${grantee.userId}`
      : sql`g.dept = ${grantee.dept} and g.post = ${grantee.post}`;
  const rows = await sql`
    delete from access_grants g
    where ${grantsOn(sql, on, on.object, permission ? [permission] : PERMISSIONS)} and ${who}
    returning g.id`;
  return rows.length;
}

/** A position as spec 001 writes it (`*` codes kept, names from the directory when it has them). */
function positionJson(sql: Queryable, tenantId: string, dept: Fragment, post: Fragment): Fragment {
  return sql`json_build_object(
    'dept', (select json_build_object('code', ${dept}, 'name', coalesce(max(d.name), ${dept}),
                                      'parent', max(d.parent_code), 'independent', coalesce(bool_or(d.independent), false),
                                      'tags', max(d.tags))
             from departments d where d.tenant_id = ${tenantId} and d.code = ${dept}),
    'post', (select json_build_object('code', ${post}, 'name', coalesce(max(p.name), ${post}), 'tags', max(p.tags),
                                      'formal', coalesce(bool_or(p.formal), false))
             from posts p where p.tenant_id = ${tenantId} and p.code = ${post}))`;
}

export interface PositionRef {
  dept: { code: string; name: string; parent: string | null; independent: boolean; tags: string | null };
  post: { code: string; name: string; tags: string | null; formal: boolean };
}

export interface GrantView {
  permission: Permission;
  user: { id: string; name: string; account: string; email: string | null; phone: string | null } | null;
  position: PositionRef | null;
  create: number;
}

/** The grants on the object: to users, and with `includePositions` to positions too; users first, by account. */
export async function grantsOnObject(
  sql: Queryable,
  on: GrantObject,
  includePositions: boolean,
): Promise<GrantView[]> {
  return sql<GrantView[]>`
    select g.permission, case when u.id is not null then ${sql.unsafe(profileJson)} end as "user",
           case when g.user_id is null then ${positionJson(sql, on.tenantId, sql`g.dept`, sql`g.post`)} end as position,
           extract(epoch from g.created_at)::bigint::float8 as create
    from access_grants g left join users u on u.id = g.user_id
    where ${grantsOn(sql, on, on.object, PERMISSIONS)}
      and ${includePositions ? sql`true` : sql`g.user_id is not null`}
      and (u.id is null or not u.disabled)
    order by g.user_id is null, u.account, g.dept, g.post, g.permission`;
}

export interface AccessView {
  scope: GrantScope;
  permission: Permission;
  object: string;
  position: PositionRef | null;
  /** The position the user holds the grant through; null when it is given to the user. */
  via: string | null;
}

/**
 * 1.7 and 7.1: the user's accesses, given to them and through the positions they hold now. The
 * object is written as a client names it: a workflow by its app code, the enterprise by its domain.
 */
export async function accessesOf(
  sql: Queryable,
  tenantId: string,
  test: boolean,
  userId: string,
): Promise<AccessView[]> {
  return sql<AccessView[]>`
    select g.scope, g.permission,
           case g.scope when 'workflow' then coalesce(a.code, g.object) when 'enterprise' then t.domain
                        else g.object end as object,
           case when g.scope = 'position'
                then ${positionJson(sql, tenantId, sql`split_part(g.object, ':', 1)`, sql`split_part(g.object, ':', 2)`)}
           end as position,
           case when g.user_id is null then g.dept || ':' || g.post end as via
    from access_grants g
    join tenants t on t.id = g.tenant_id
    left join workflow_apps a on a.id = case when g.scope = 'workflow' then g.object::uuid end
    where g.tenant_id = ${tenantId} and g.test = ${test} and ${heldBy(sql, tenantId, userId)}
    order by g.scope, 3, g.permission, 5 nulls first`;
}

/**
 * An operator's list of grantees of one permission on an object: the rows the lists wrote before
 * (in both data modes) are replaced by these; rows written by other means stay. An account the
 * tenant does not have (or has disabled) is refused, naming it.
 */
export async function replaceListedGrants(
  sql: Queryable,
  on: Omit<GrantObject, "test">,
  permission: Permission,
  list: GranteeList,
): Promise<{ missing: string[] }> {
  const wanted = [...new Set(list.accounts)];
  const users = await sql<{ id: string; account: string }[]>`
    select id, account from users
    where tenant_id = ${on.tenantId} and not disabled and account = any(${wanted}::text[])`;
  const missing = wanted.filter((account) => !users.some((row) => row.account === account));
  if (missing.length > 0) return { missing };
  const userIds = users.map((row) => row.id);
  const depts = list.positions.map((position) => position.dept);
  const posts = list.positions.map((position) => position.post);
  await sql`
    with gone as (
      delete from access_grants g
      where g.tenant_id = ${on.tenantId} and g.scope = ${on.scope} and g.object = ${on.object}
        and g.permission = ${permission} and g.source = ${LISTED_SOURCE}
        and ((g.user_id is not null and g.user_id <> all(${userIds}::uuid[]))
             or (g.user_id is null and (g.dept, g.post) not in (
                   select * from unnest(${depts}::text[], ${posts}::text[])))))
    insert into access_grants (tenant_id, test, scope, object, user_id, dept, post, permission, source)
    select ${on.tenantId}, mode.test, ${on.scope}, ${on.object}, grantee.user_id, grantee.dept, grantee.post,
           ${permission}, ${LISTED_SOURCE}
    from (select id as user_id, null as dept, null as post from unnest(${userIds}::uuid[]) as id
          union all
          select null, d, p from unnest(${depts}::text[], ${posts}::text[]) as listed (d, p)) as grantee
    cross join (values (false), (true)) as mode (test)
    on conflict do nothing`;
  return { missing: [] };
}

/** The grantees the operator's lists gave one permission on an object (formal data's rows; both modes hold the same). */
export async function listedGrantees(
  sql: Queryable,
  on: Omit<GrantObject, "test">,
  permission: Permission,
  limit: number,
) {
  return sql<{ account: string | null; disabled: boolean; dept: string | null; post: string | null }[]>`
    select u.account, coalesce(u.disabled, false) as disabled, g.dept, g.post
    from access_grants g left join users u on u.id = g.user_id
    where g.tenant_id = ${on.tenantId} and g.test = false and g.scope = ${on.scope} and g.object = ${on.object}
      and g.permission = ${permission} and g.source = ${LISTED_SOURCE}
    order by g.user_id is null, u.account, g.dept, g.post
    limit ${limit}`;
}
