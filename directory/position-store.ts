import type postgres from "postgres";
import { ErrorCode, localizedError } from "../contracts/errors.ts";
import { joinFragments, type Queryable } from "../runtime/database.ts";
import { byIdOrCode, FEED_SOURCE, MANUAL_SOURCE, type UserEntry } from "./triple-store.ts";

/** A Position `{dept}:{post}`; `*` in either part matches every department or post. */
export interface PositionPattern {
  dept: string;
  post: string;
}

export const WILDCARD = "*";
/** Positions one filter may list. */
export const MAX_POSITIONS_PER_FILTER = 50;

export function parsePosition(text: string): PositionPattern {
  const colon = text.indexOf(":");
  const dept = text.slice(0, colon).trim();
  const post = text.slice(colon + 1).trim();
  if (colon < 0 || !dept || !post)
    throw localizedError(ErrorCode.InvalidArgument, "invalidPosition", { position: text });
  return { dept, post };
}

/** A user filter: positions separated by commas. */
export function parsePositionFilter(text: string): PositionPattern[] {
  const parts = text
    .split(",")
    .map((part) => part.trim())
    .filter(Boolean);
  if (parts.length === 0 || parts.length > MAX_POSITIONS_PER_FILTER) {
    throw localizedError(ErrorCode.InvalidArgument, "invalidParameter", {
      field: "positions",
      detail: `1 to ${MAX_POSITIONS_PER_FILTER} positions`,
    });
  }
  return parts.map(parsePosition);
}

/** A held position as spec 001 writes it, with the holder's number and business dimensions. */
export interface HeldPosition {
  dept: { code: string; name: string; parent: string | null; independent: boolean; tags: string | null };
  post: { code: string; name: string; tags: string | null; formal: boolean };
  number: string | null;
  bizes: { bizType: string; bizCode: string }[];
  source: string;
}

const HELD_POSITION_JSON = `json_build_object(
  'dept', json_build_object('code', d.code, 'name', d.name, 'parent', d.parent_code,
                            'independent', d.independent, 'tags', d.tags),
  'post', json_build_object('code', p.code, 'name', p.name, 'tags', p.tags, 'formal', p.formal),
  'number', o.user_code, 'bizes', o.bizes, 'source', o.source)`;

/** The condition one pattern puts on an occupancy's department `d` and post `p`. */
function matching(sql: Queryable) {
  return ({ dept, post }: PositionPattern) => {
    if (dept === WILDCARD) return post === WILDCARD ? sql`true` : sql`p.code = ${post}`;
    return post === WILDCARD ? sql`d.code = ${dept}` : sql`(d.code = ${dept} and p.code = ${post})`;
  };
}

/**
 * The occupancies that count: enabled, of an enabled department and post, whose department and
 * post match one of the patterns (all when `patterns` is undefined). `o`, `d` and `p` name the rows.
 */
function activeOccupancies(sql: Queryable, tenantId: string, patterns: PositionPattern[] | undefined) {
  const match = patterns ? sql`and (${joinFragments(sql, patterns.map(matching(sql)), " or ")})` : sql``;
  return sql`
    occupancies o
    join departments d on d.id = o.dept_id and d.tenant_id = ${tenantId} and not d.disabled
    join posts p on p.id = o.post_id and p.tenant_id = ${tenantId} and not p.disabled
    where o.tenant_id = ${tenantId} and not o.disabled ${match}`;
}

/**
 * The occupancies that count whose department and post match a pattern given as SQL expressions
 * (`*` matching any), for conditions that read the pattern from another table's row (a grant).
 */
export function occupanciesMatching(
  sql: Queryable,
  tenantId: string,
  dept: postgres.PendingQuery<postgres.Row[]>,
  post: postgres.PendingQuery<postgres.Row[]>,
) {
  return sql`${activeOccupancies(sql, tenantId, undefined)}
    and (${dept} = ${WILDCARD} or ${dept} = d.code) and (${post} = ${WILDCARD} or ${post} = p.code)`;
}

/**
 * Every pattern (`dept`, `post`, either `*`) that matches a position the user holds now, as a
 * subquery of two columns: a condition `(dept, post) in (…)` asks it once, not once per row.
 */
export function positionPatternsHeldBy(sql: Queryable, tenantId: string, userId: string) {
  return sql`select pattern.dept, pattern.post
    from (select d.code as dept, p.code as post from ${activeOccupancies(sql, tenantId, undefined)}
          and o.user_id = ${userId}) held
    cross join lateral (values (held.dept, held.post), (${WILDCARD}, held.post), (held.dept, ${WILDCARD}),
                               (${WILDCARD}, ${WILDCARD})) as pattern (dept, post)`;
}

/**
 * The users holding any of the positions: one index lookup per position (by department, by post or
 * both), where a single OR over all of them would read every occupancy of the tenant.
 */
function positionHolders(sql: Queryable, tenantId: string, patterns: PositionPattern[]) {
  const branches = joinFragments(
    sql,
    patterns.map((pattern) => sql`select o.user_id from ${activeOccupancies(sql, tenantId, [pattern])}`),
    " union all ",
  );
  return sql`select distinct user_id from (${branches}) holders`;
}

/** 1.6 and 6.1: the positions a user holds, official (formal) posts first. */
export async function positionsOf(sql: Queryable, tenantId: string, userId: string): Promise<HeldPosition[]> {
  const rows = await sql<{ position: HeldPosition }[]>`
    select ${sql.unsafe(HELD_POSITION_JSON)} as position
    from ${activeOccupancies(sql, tenantId, undefined)} and o.user_id = ${userId}
    order by p.formal desc, d.code, p.code`;
  return rows.map((row) => row.position);
}

export interface UserQuery {
  start: number;
  limit: number;
  accounts?: string[] | undefined;
  keywords?: string[] | undefined;
  positions?: PositionPattern[] | undefined;
}

/** Keywords this long or longer match anywhere in the account, name, e-mail or phone (trigram index). */
const CONTAINS_FROM_LENGTH = 3;

function likePattern(text: string): string {
  return text.replace(/[\\%_]/g, (char) => `\\${char}`);
}

/**
 * Texts starting with `prefix` as a range `[prefix, next)`, which a `text_pattern_ops` index
 * serves even in a prepared statement's generic plan (a LIKE pattern in a parameter is not).
 */
function prefixRange(column: postgres.PendingQuery<postgres.Row[]>, prefix: string, sql: Queryable) {
  const last = prefix.codePointAt(prefix.length - 1)!;
  const upper = prefix.slice(0, prefix.length - (last > 0xffff ? 2 : 1)) + String.fromCodePoint(last + 1);
  return sql`(${column} ~>=~ ${prefix} and ${column} ~<~ ${upper})`;
}

/**
 * 5.5 and 6.2: enabled users of a tenant, by account, with the total before paging. Keywords
 * (any one matches) of three or more characters are found anywhere in the account, name, e-mail or
 * phone; shorter ones at the start of the account or name, which is what a picker types.
 */
export async function searchUsers(
  sql: Queryable,
  tenantId: string,
  query: UserQuery,
): Promise<{ total: number; users: (UserEntry & { positions?: HeldPosition[] })[] }> {
  const conditions = [sql`u.tenant_id = ${tenantId}`, sql`not u.disabled`];
  if (query.accounts) conditions.push(sql`u.account = any(${query.accounts}::text[])`);
  if (query.keywords && query.keywords.length > 0) {
    const any = query.keywords.map((keyword) => {
      const lower = keyword.toLowerCase();
      return [...keyword].length >= CONTAINS_FROM_LENGTH
        ? sql`u.search_text like ${`%${likePattern(lower)}%`}`
        : sql`(${prefixRange(sql`lower(u.account)`, lower, sql)} or ${prefixRange(sql`u.name`, keyword, sql)})`;
    });
    conditions.push(sql`(${joinFragments(sql, any, " or ")})`);
  }
  // The holders of the positions first: usually few, and the rest of the filter runs on them alone.
  const from = query.positions
    ? sql`(${positionHolders(sql, tenantId, query.positions)}) h join users u on u.id = h.user_id`
    : sql`users u`;
  const where = joinFragments(sql, conditions, " and ");
  const rows = await sql<(UserEntry & { total: number; positions?: HeldPosition[] })[]>`
    select u.id, u.account as code, u.account, u.name, u.email, u.phone, u.title, u.express,
           u.description, u.source, count(*) over ()::int as total
           ${
             query.positions
               ? sql`, (select coalesce(json_agg(${sql.unsafe(HELD_POSITION_JSON)} order by d.code, p.code), '[]')
                    from ${activeOccupancies(sql, tenantId, query.positions)} and o.user_id = u.id) as positions`
               : sql``
           }
    from ${from} where ${where}
    order by u.account
    limit ${query.limit} offset ${query.start}`;
  const total = rows[0]?.total ?? (query.start > 0 ? await countUsers(sql, from, where) : 0);
  return { total, users: rows.map(({ total: _total, ...user }) => user) };
}

/** The total when the page asked for lies past the end, so the window count saw no rows. */
async function countUsers(
  sql: Queryable,
  from: postgres.PendingQuery<postgres.Row[]>,
  where: postgres.PendingQuery<postgres.Row[]>,
): Promise<number> {
  const [row] = await sql<{ total: number }[]>`select count(*)::int as total from ${from} where ${where}`;
  return row?.total ?? 0;
}

/** A user of the tenant by account or id, enabled. */
export async function userIdByCode(sql: Queryable, tenantId: string, code: string): Promise<string> {
  const [row] = await sql<{ id: string }[]>`
    select id from users where tenant_id = ${tenantId} and not disabled
      and ${byIdOrCode(sql, "user", code)}`;
  if (!row) throw localizedError(ErrorCode.NotFound, "noEntity", { type: { term: "user" }, code });
  return row.id;
}

/** Refuses a position whose department or post (other than `*`) the tenant does not have. */
export async function requireKnownPosition(
  sql: Queryable,
  tenantId: string,
  position: PositionPattern,
): Promise<void> {
  const [known] = await sql<{ dept: boolean; post: boolean }[]>`
    select ${position.dept} = ${WILDCARD} or exists (
             select from departments where tenant_id = ${tenantId} and code = ${position.dept} and not disabled) as dept,
           ${position.post} = ${WILDCARD} or exists (
             select from posts where tenant_id = ${tenantId} and code = ${position.post} and not disabled) as post`;
  if (!known!.dept)
    throw localizedError(ErrorCode.NotFound, "noEntity", { type: { term: "dept" }, code: position.dept });
  if (!known!.post)
    throw localizedError(ErrorCode.NotFound, "noEntity", { type: { term: "post" }, code: position.post });
}

/**
 * 6.3: the user holds the post in the department from now on (again, if it was removed). A manual
 * grant carries its source, so the feed does not take it back.
 */
export async function grantPosition(
  sql: Queryable,
  tenantId: string,
  position: PositionPattern,
  grant: { code: string; number?: string | undefined; source?: string | undefined },
): Promise<HeldPosition> {
  if (position.dept === WILDCARD || position.post === WILDCARD) {
    throw localizedError(ErrorCode.InvalidArgument, "concretePosition", {
      position: `${position.dept}:${position.post}`,
    });
  }
  const userId = await userIdByCode(sql, tenantId, grant.code);
  const [dept] = await sql<{ id: string }[]>`
    select id from departments where tenant_id = ${tenantId} and code = ${position.dept} and not disabled`;
  if (!dept)
    throw localizedError(ErrorCode.NotFound, "noEntity", { type: { term: "dept" }, code: position.dept });
  const [post] = await sql<{ id: string }[]>`
    select id from posts where tenant_id = ${tenantId} and code = ${position.post} and not disabled`;
  if (!post)
    throw localizedError(ErrorCode.NotFound, "noEntity", { type: { term: "post" }, code: position.post });
  await sql`
    insert into occupancies (tenant_id, user_id, dept_id, post_id, user_code, source)
    values (${tenantId}, ${userId}, ${dept.id}, ${post.id}, ${grant.number ?? null}, ${grant.source ?? MANUAL_SOURCE})
    on conflict (user_id, dept_id, post_id) do update set
      user_code = coalesce(excluded.user_code, occupancies.user_code), source = excluded.source,
      disabled = false, updated_at = now()`;
  const [held] = await sql<{ position: HeldPosition }[]>`
    select ${sql.unsafe(HELD_POSITION_JSON)} as position
    from ${activeOccupancies(sql, tenantId, [position])} and o.user_id = ${userId}`;
  return held!.position;
}

/**
 * 6.4: the user no longer holds the matching positions. The occupancies are disabled under the
 * caller's source, so a feed does not bring back what someone took away by hand.
 */
export async function revokePosition(
  sql: Queryable,
  tenantId: string,
  patterns: PositionPattern[],
  grant: { code: string; source?: string | undefined },
): Promise<HeldPosition[]> {
  const userId = await userIdByCode(sql, tenantId, grant.code);
  const rows = await sql<{ position: HeldPosition }[]>`
    with revoked as (
      update occupancies set disabled = true, source = ${grant.source ?? MANUAL_SOURCE}, updated_at = now()
      where id in (select o.id from ${activeOccupancies(sql, tenantId, patterns)} and o.user_id = ${userId})
      returning id, dept_id, post_id, user_code, bizes, source)
    select ${sql.unsafe(HELD_POSITION_JSON)} as position
    from revoked o join departments d on d.id = o.dept_id join posts p on p.id = o.post_id
    order by d.code, p.code`;
  return rows.map((row) => row.position);
}

/** Posts held in whichever departments a given user holds a post in. */
export interface PostsInDepartmentsOf {
  userId: string;
  posts: string[];
}

/**
 * The enabled users holding any of the positions, or one of the posts in the departments of
 * `inDepartmentsOf`'s user, by account; one query.
 */
export async function positionHolderIds(
  sql: Queryable,
  tenantId: string,
  patterns: PositionPattern[],
  inDepartmentsOf?: PostsInDepartmentsOf,
): Promise<string[]> {
  const branches = patterns.map(
    (pattern) => sql`select o.user_id from ${activeOccupancies(sql, tenantId, [pattern])}`,
  );
  if (inDepartmentsOf && inDepartmentsOf.posts.length > 0) {
    const posts = inDepartmentsOf.posts.map((post) => ({ dept: WILDCARD, post }));
    branches.push(sql`
      select o.user_id from ${activeOccupancies(sql, tenantId, posts)}
        and o.dept_id in (select o.dept_id from ${activeOccupancies(sql, tenantId, undefined)}
                          and o.user_id = ${inDepartmentsOf.userId})`);
  }
  if (branches.length === 0) return [];
  const holders = joinFragments(sql, branches, " union ");
  const rows = await sql<{ id: string }[]>`
    select u.id from (${holders}) h
    join users u on u.id = h.user_id and not u.disabled
    order by u.account`;
  return rows.map((row) => row.id);
}

/** The enabled users of the tenant named by account or id, in the order named; unknown ones left out. */
export async function userIdsByCodes(sql: Queryable, tenantId: string, codes: string[]): Promise<string[]> {
  if (codes.length === 0) return [];
  const ids = codes.filter((code) =>
    /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(code),
  );
  const rows = await sql<{ id: string; account: string }[]>`
    select id, account from users
    where tenant_id = ${tenantId} and not disabled
      and (account = any(${codes}::text[]) or id = any(${ids}::uuid[]))`;
  const byCode = new Map(rows.flatMap((row) => [[row.account, row.id] as const, [row.id, row.id] as const]));
  return [...new Set(codes.map((code) => byCode.get(code)).filter((id): id is string => id !== undefined))];
}

/** A position as the bootstrap export reads it. */
export interface PositionRecord {
  account: string;
  dept: string;
  post: string;
  number: string | null;
}

/**
 * A page of the tenant's held positions not managed by its enterprise feed, after `after` in
 * (account, dept, post) order: what an operator's file may hold.
 */
export async function positionPage(
  sql: Queryable,
  tenantId: string,
  after: PositionRecord | null,
  limit: number,
): Promise<PositionRecord[]> {
  return sql<PositionRecord[]>`
    select u.account, d.code as dept, p.code as post, o.user_code as number
    from occupancies o
      join users u on u.id = o.user_id and not u.disabled
      join departments d on d.id = o.dept_id and not d.disabled
      join posts p on p.id = o.post_id and not p.disabled
    where o.tenant_id = ${tenantId} and not o.disabled and o.source <> ${FEED_SOURCE}
      ${after === null ? sql`` : sql`and (u.account, d.code, p.code) > (${after.account}, ${after.dept}, ${after.post})`}
    order by u.account, d.code, p.code limit ${limit}`;
}
