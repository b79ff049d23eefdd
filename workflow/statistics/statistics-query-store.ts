import type postgres from "postgres";
import type { Queryable } from "../../runtime/database.ts";

/** The processes a question is about: a tenant's, of one data mode, of every app or of some. */
export interface StatsScope {
  tenantId: string;
  test: boolean;
  apps: readonly string[] | "all";
}

export type StatsCycle = "hour" | "day" | "week" | "month" | "year";

/** 8.2's four counts. */
export interface StatusCounts {
  running: number;
  suspend: number;
  killed: number;
  completed: number;
}

/** One period of 8.3 and 8.4, from its start (Unix seconds). */
export interface PeriodCounts {
  time: number;
  started: number;
  completed: number;
  killed: number;
  todoHandled: number;
  todoWaitSeconds: number;
}

type Fragment = postgres.Fragment;

function ofApps(sql: Queryable, scope: StatsScope, column: Fragment): Fragment {
  if (scope.apps === "all") return sql``;
  // One app as an equality: the planner then bounds the index range by hour as well.
  if (scope.apps.length === 1) return sql`and ${column} = ${scope.apps[0]!}`;
  return sql`and ${column} = any(${scope.apps as string[]}::uuid[])`;
}

/**
 * 8.2: processes started in `[from, to)` by their status now. The whole local days inside
 * `[firstHour, lastHour)` are read from the daily sums, the whole hours around them from the hourly
 * ones, and the parts of hours at the edges from the counted processes.
 */
export async function statusCounts(
  sql: Queryable,
  scope: StatsScope,
  range: { from: Date; to: Date; firstHour: Date; lastHour: Date; timeZone: string },
): Promise<StatusCounts> {
  const { firstHour, lastHour, timeZone } = range;
  const where = (column: Fragment) =>
    sql`tenant_id = ${scope.tenantId} and test = ${scope.test} ${ofApps(sql, scope, column)}`;
  const statuses = sql`running, suspended, ended_done, ended_killed`;
  // The whole days `[first, last)`; none (both `lastHour`) when the range holds no whole day.
  const [row] = await sql<StatusCounts[]>`
    with local as (
      select date_trunc('day', ${firstHour}::timestamptz at time zone ${timeZone}) at time zone ${timeZone} as day_of_first,
             date_trunc('day', ${lastHour}::timestamptz at time zone ${timeZone}) at time zone ${timeZone} as last
    ), days as (
      select case when first < last then first else ${lastHour}::timestamptz end as first,
             case when first < last then last else ${lastHour}::timestamptz end as last
      from (select case when day_of_first = ${firstHour}::timestamptz then day_of_first
                        else (date_trunc('day', ${firstHour}::timestamptz at time zone ${timeZone}) + interval '1 day')
                             at time zone ${timeZone} end as first, last
            from local) bounds
    )
    select coalesce(sum(running), 0)::int as running, coalesce(sum(suspended), 0)::int as suspend,
           coalesce(sum(ended_killed), 0)::int as killed, coalesce(sum(ended_done), 0)::int as completed
    from (
      select ${statuses} from workflow_stats_days
      where ${where(sql`app_id`)} and day >= (select first from days) and day < (select last from days)
      union all
      select ${statuses} from workflow_stats_hours
      where ${where(sql`app_id`)} and hour >= ${firstHour} and hour < (select first from days)
      union all
      select ${statuses} from workflow_stats_hours
      where ${where(sql`app_id`)} and hour >= (select last from days) and hour < ${lastHour}
      union all
      select (status = 'doing')::int, (status = 'suspended')::int, (status = 'done')::int, (status = 'killed')::int
      from workflow_stats_processes
      where ${where(sql`app_id`)}
        and ((started_at >= ${range.from} and started_at < ${firstHour})
          or (started_at >= ${lastHour} and started_at < ${range.to}))
    ) counted`;
  return row!;
}

const STEP: Record<StatsCycle, string> = {
  hour: "1 hour",
  day: "1 day",
  week: "1 week",
  month: "1 month",
  year: "1 year",
};

/**
 * The `count` periods of `cycle` in `timeZone` whose last holds `at`, with the sums of their hours;
 * with `counting` false, the periods alone, all zero. An hour is a span of 60 minutes from the start
 * of a local hour, so the autumn's repeated hour is two periods; a day, week, month or year is the
 * span between two local midnights, so a day has 23, 24 or 25 hours.
 */
export async function periodCounts(
  sql: Queryable,
  scope: StatsScope,
  question: {
    cycle: StatsCycle;
    count: number;
    at: Date;
    lastHour: Date;
    timeZone: string;
    counting: boolean;
  },
): Promise<PeriodCounts[]> {
  const { cycle, count, timeZone } = question;
  const step = STEP[cycle];
  const periods =
    cycle === "hour"
      ? sql`select p as start, p + interval '1 hour' as finish
            from generate_series(${question.lastHour}::timestamptz - interval '1 hour' * ${count - 1}::int,
                                 ${question.lastHour}::timestamptz, interval '1 hour') p`
      : sql`select p at time zone ${timeZone} as start, (p + ${step}::interval) at time zone ${timeZone} as finish
            from generate_series(date_trunc(${cycle}, ${question.at}::timestamptz at time zone ${timeZone})
                                   - ${step}::interval * ${count - 1}::int,
                                 date_trunc(${cycle}, ${question.at}::timestamptz at time zone ${timeZone}),
                                 ${step}::interval) p`;
  // Hours from the hourly sums; days, weeks, months and years, whole local days, from the daily
  // ones. Each bucket is summed into the period it starts, found by truncating it as the periods
  // are made, then joined to them by that start: one pass over the span's buckets, where a join on
  // ranges would compare every bucket with every period (52 weeks × 7,280 days of 20 apps).
  const periodOf =
    cycle === "hour"
      ? sql`h.hour`
      : sql`date_trunc(${cycle}, h.day at time zone ${timeZone}) at time zone ${timeZone}`;
  const [table, bucket] =
    cycle === "hour" ? [sql`workflow_stats_hours`, sql`h.hour`] : [sql`workflow_stats_days`, sql`h.day`];
  const sums = question.counting
    ? sql`select ${periodOf} as start, sum(h.started) as started, sum(h.completed) as completed,
                 sum(h.killed) as killed, sum(h.todo_handled) as todo_handled,
                 sum(h.todo_wait_seconds) as todo_wait_seconds
          from ${table} h
          where h.tenant_id = ${scope.tenantId} and h.test = ${scope.test} ${ofApps(sql, scope, sql`h.app_id`)}
            and ${bucket} >= (select min(start) from periods) and ${bucket} < (select max(finish) from periods)
          group by 1`
    : sql`select null::timestamptz as start, 0 as started, 0 as completed, 0 as killed, 0 as todo_handled,
                 0 as todo_wait_seconds
          where false`;
  return sql<PeriodCounts[]>`
    with periods as (${periods}), sums as (${sums})
    select extract(epoch from periods.start)::float8 as time, coalesce(sums.started, 0)::int as started,
           coalesce(sums.completed, 0)::int as completed, coalesce(sums.killed, 0)::int as killed,
           coalesce(sums.todo_handled, 0)::int as "todoHandled",
           coalesce(sums.todo_wait_seconds, 0)::float8 as "todoWaitSeconds"
    from periods left join sums on sums.start = periods.start
    order by periods.start`;
}

/** 8.1's apps: the scope's apps with their version online for the data mode and processes counted. */
export async function statsApps(sql: Queryable, scope: StatsScope, counting: boolean) {
  const online = scope.test ? sql`v.online_test` : sql`v.online_formal`;
  const counted = counting
    ? sql`(select coalesce(sum(d.started), 0) from workflow_stats_days d
           where d.tenant_id = a.tenant_id and d.test = ${scope.test} and d.app_id = a.id)`
    : sql`0`;
  return sql<
    {
      id: string;
      name: string;
      code: string;
      tags: string;
      createdAt: Date;
      release: Date | null;
      processCount: number;
    }[]
  >`
    select a.id, a.name, a.code, a.tags, a.created_at as "createdAt",
           (select max(v.created_at) from workflow_versions v where v.app_id = a.id and ${online}) as release,
           ${counted}::int as "processCount"
    from workflow_apps a
    where a.tenant_id = ${scope.tenantId} ${ofApps(sql, scope, sql`a.id`)}
    order by a.name, a.code
    limit 1000`;
}
