import type { FeedEntity } from "../contracts/feed.ts";
import type { Queryable } from "../runtime/database.ts";
import { FEED_SOURCE } from "./triple-store.ts";

/** What merging one entity of a run did. */
export interface MergeCounts {
  /** Rows created or changed (unchanged ones and manual entries are not counted). */
  applied: number;
  /** Entries of the feed's own that a full pull no longer lists, now disabled. */
  disabled: number;
  /** Occupancies naming a user, department or post the directory does not have. */
  unresolved: number;
}

export interface MergeInput {
  tenantId: string;
  runId: string;
  /** Entities the provider sent in full (every timestamp null): what they leave out is disabled. */
  full: ReadonlySet<FeedEntity>;
  /** Unresolved occupancies recorded one by one, at most this many. */
  maxRejects: number;
}

/**
 * Applies a run's staged rows to the directory, in dependency order, in the caller's transaction.
 * Only entries the feed wrote (`source` FEED) and new ones change; a manual entry stays as it is.
 * The last row of a key wins when a feed repeats it.
 */
export async function mergeFeed(sql: Queryable, input: MergeInput): Promise<Record<FeedEntity, MergeCounts>> {
  return {
    users: await mergeEntries(sql, "users", input),
    depts: await mergeEntries(sql, "depts", input),
    posts: await mergeEntries(sql, "posts", input),
    occupies: await mergeOccupancies(sql, input),
  };
}

async function count(query: Promise<{ count: number }[]>): Promise<number> {
  const [row] = await query;
  return row?.count ?? 0;
}

/**
 * Where each entity's staged rows go: its table, the key a feed names it by, and the columns the
 * feed sets (named alike in the staging table).
 */
const ENTRIES = {
  users: { table: "users", key: "account", columns: ["name", "email", "phone", "disabled"] },
  depts: { table: "departments", key: "code", columns: ["name", "parent_code", "independent", "disabled"] },
  posts: { table: "posts", key: "code", columns: ["name", "formal", "biz_types", "disabled"] },
} as const;

/** Upserts one entity's staged rows and, after a full pull, disables the feed's entries left out. */
async function mergeEntries(
  sql: Queryable,
  entity: keyof typeof ENTRIES,
  { tenantId, runId, full }: MergeInput,
): Promise<MergeCounts> {
  const { table, key, columns } = ENTRIES[entity];
  const stage = `feed_stage_${entity}`;
  const list = (prefix: string) => columns.map((column) => `${prefix}${column}`).join(", ");
  const applied = await count(sql`
    with upserted as (
      insert into ${sql(table)} (tenant_id, ${sql.unsafe(key)}, ${sql.unsafe(list(""))}, source, feed_timestamp)
      select distinct on (${sql.unsafe(key)}) ${tenantId}::uuid, ${sql.unsafe(key)}, ${sql.unsafe(list(""))},
             ${FEED_SOURCE}, ts
      from ${sql(stage)} where run_id = ${runId} order by ${sql.unsafe(key)}, ord desc
      on conflict (tenant_id, ${sql.unsafe(key)}) do update set
        ${sql.unsafe(columns.map((column) => `${column} = excluded.${column}`).join(", "))},
        feed_timestamp = excluded.feed_timestamp, updated_at = now()
      where ${sql(table)}.source = ${FEED_SOURCE}
        and (${sql.unsafe(list(`${table}.`))}) is distinct from (${sql.unsafe(list("excluded."))})
      returning 1)
    select count(*)::int as count from upserted`);
  const disabled = full.has(entity)
    ? await count(sql`
        with gone as (
          update ${sql(table)} set disabled = true, updated_at = now()
          where tenant_id = ${tenantId} and source = ${FEED_SOURCE} and not disabled
            and not exists (select 1 from ${sql(stage)} s
                            where s.run_id = ${runId} and s.${sql.unsafe(key)} = ${sql(table)}.${sql.unsafe(key)})
          returning 1)
        select count(*)::int as count from gone`)
    : 0;
  return { applied, disabled, unresolved: 0 };
}

async function mergeOccupancies(sql: Queryable, input: MergeInput): Promise<MergeCounts> {
  const { tenantId, runId, full, maxRejects } = input;
  // Each staged occupancy with the ids its account and codes stand for, null where there is none.
  const resolved = sql`
    select s.*, u.id as user_id, d.id as dept_id, p.id as post_id
    from (select distinct on (account, dept_code, post_code) * from feed_stage_occupies
          where run_id = ${runId} order by account, dept_code, post_code, ord desc) s
    left join users u on u.tenant_id = ${tenantId} and u.account = s.account
    left join departments d on d.tenant_id = ${tenantId} and d.code = s.dept_code
    left join posts p on p.tenant_id = ${tenantId} and p.code = s.post_code`;
  const unresolved = await count(sql`
    with missing as (select * from (${resolved}) r where user_id is null or dept_id is null or post_id is null),
    recorded as (
      insert into feed_rejects (run_id, entity, row_index, key, reason)
      select ${runId}, 'occupies', ord, account || ':' || dept_code || ':' || post_code,
             concat_ws(', ', case when user_id is null then 'no user ' || account end,
                             case when dept_id is null then 'no department ' || dept_code end,
                             case when post_id is null then 'no post ' || post_code end)
      from missing order by ord limit ${maxRejects}
      returning 1)
    select (select count(*)::int from missing) as count, (select count(*) from recorded) as recorded`);
  const applied = await count(sql`
    with upserted as (
      insert into occupancies (tenant_id, user_id, dept_id, post_id, user_code, bizes, disabled, source, feed_timestamp)
      select ${tenantId}::uuid, user_id, dept_id, post_id, user_code, bizes, disabled, ${FEED_SOURCE}, ts
      from (${resolved}) r where user_id is not null and dept_id is not null and post_id is not null
      on conflict (user_id, dept_id, post_id) do update set
        user_code = excluded.user_code, bizes = excluded.bizes, disabled = excluded.disabled,
        feed_timestamp = excluded.feed_timestamp, updated_at = now()
      where occupancies.source = ${FEED_SOURCE}
        and (occupancies.user_code, occupancies.bizes, occupancies.disabled)
            is distinct from (excluded.user_code, excluded.bizes, excluded.disabled)
      returning 1)
    select count(*)::int as count from upserted`);
  const disabled = full.has("occupies")
    ? await count(sql`
        with listed as (select user_id, dept_id, post_id from (${resolved}) r where user_id is not null),
        gone as (
          update occupancies o set disabled = true, updated_at = now()
          where o.tenant_id = ${tenantId} and o.source = ${FEED_SOURCE} and not o.disabled
            and not exists (select 1 from listed l
                            where l.user_id = o.user_id and l.dept_id = o.dept_id and l.post_id = o.post_id)
          returning 1)
        select count(*)::int as count from gone`)
    : 0;
  return { applied, disabled, unresolved };
}

/** Fresh planner statistics for the directory's tables, after a large change. */
export async function analyzeDirectory(sql: Queryable): Promise<void> {
  await sql`analyze users, departments, posts, occupancies`;
}
