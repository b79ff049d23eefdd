import type postgres from "postgres";
import { joinFragments, type Queryable } from "../runtime/database.ts";

export interface ActivityQuery {
  tenantId: string;
  test: boolean;
  processId?: string | undefined;
  userId?: string | undefined;
  keyword?: string | undefined;
  /** Unix seconds, either side open. */
  from?: number | undefined;
  to?: number | undefined;
  appId?: string | undefined;
  categories?: string[] | undefined;
  levels?: string[] | undefined;
  /** Leave out the activities of steps marked hidden. */
  withoutHidden: boolean;
  start: number;
  limit: number;
}

/** 4.13: activity records, newest first, with the total before paging. */
export async function queryActivities(sql: Queryable, query: ActivityQuery) {
  const conditions = [sql`a.tenant_id = ${query.tenantId}`, sql`a.test = ${query.test}`];
  if (query.processId) conditions.push(sql`a.process_id = ${query.processId}`);
  if (query.userId) conditions.push(sql`a.user_id = ${query.userId}`);
  if (query.keyword)
    conditions.push(sql`a.description ilike ${`%${query.keyword.replace(/[\\%_]/g, (c) => `\\${c}`)}%`}`);
  if (query.from !== undefined) conditions.push(sql`a.created_at >= to_timestamp(${query.from})`);
  if (query.to !== undefined) conditions.push(sql`a.created_at <= to_timestamp(${query.to})`);
  if (query.appId) conditions.push(sql`a.app_id = ${query.appId}`);
  if (query.categories) conditions.push(sql`a.category = any(${query.categories}::text[])`);
  if (query.levels) conditions.push(sql`a.level = any(${query.levels}::text[])`);
  if (query.withoutHidden) conditions.push(sql`not a.hidden`);
  const where = joinFragments(sql, conditions, " and ");
  const rows = await sql<
    {
      id: string;
      description: string;
      level: string;
      timestamp: number;
      category: string;
      tags: string;
      user: string | null;
      entryId: number | null;
      total: number;
    }[]
  >`
    select a.id::text as id, a.description, a.level, extract(epoch from a.created_at)::bigint::float8 as timestamp,
           a.category, a.tags, u.account as "user", a.entry::float8 as "entryId", count(*) over ()::int as total
    from workflow_activities a left join users u on u.id = a.user_id
    where ${where}
    order by a.id desc
    limit ${query.limit} offset ${query.start}`;
  const total = rows[0]?.total ?? (query.start > 0 ? await countActivities(sql, where) : 0);
  return { total, activities: rows.map(({ total: _total, ...activity }) => activity) };
}

async function countActivities(sql: Queryable, where: postgres.PendingQuery<postgres.Row[]>) {
  const [row] = await sql<
    { n: number }[]
  >`select count(*)::int as n from workflow_activities a where ${where}`;
  return row?.n ?? 0;
}
