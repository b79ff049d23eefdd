-- Counting a tenant's history when it switches `workflow.statistics` on (docs/statistics.md): the
-- processes started before were never offered to the statistics subscriber, so a background job
-- counts them into the same tables, in batches, keeping its place and progress here. One row per
-- tenant, made again each time the setting goes from off to on.
create table workflow_stats_backfills (
  tenant_id uuid primary key references tenants (id) on delete cascade,
  requested_at timestamptz not null default now(),
  started_at timestamptz,
  finished_at timestamptz,
  -- the tenant's processes when the job started, those gone through, and those of them it counted
  -- (the others the subscriber had counted first)
  total integer,
  examined integer not null default 0,
  counted integer not null default 0,
  -- the last process gone through, by its serial number in the tenant
  after_entry bigint not null default 0
);
create index workflow_stats_backfills_pending on workflow_stats_backfills (requested_at) where finished_at is null;

-- Every way of writing the setting (bootstrap, admin API, console) goes through this table, so the
-- switch is seen here rather than in each of them.
create function workflow_stats_backfill_on_switch() returns trigger language plpgsql as $$
begin
  if coalesce((new.settings->'workflow'->'statistics'->>'on')::boolean, false)
     and (tg_op = 'INSERT' or not coalesce((old.settings->'workflow'->'statistics'->>'on')::boolean, false)) then
    insert into workflow_stats_backfills (tenant_id) values (new.id)
    on conflict (tenant_id) do update set requested_at = now(), started_at = null, finished_at = null,
      total = null, examined = 0, counted = 0, after_entry = 0;
  end if;
  return null;
end
$$;
create trigger workflow_stats_backfill_on_switch after insert or update of settings on tenants
  for each row execute function workflow_stats_backfill_on_switch();

insert into workflow_stats_backfills (tenant_id)
select id from tenants where coalesce((settings->'workflow'->'statistics'->>'on')::boolean, false);

-- The same sums by the tenant's local day (`day`, the instant of its local midnight, as
-- `date_trunc('day', t at time zone tz) at time zone tz` gives it), written with the hours: a
-- question over months or years of every app reads one row per app and day, not per hour.
create table workflow_stats_days (like workflow_stats_hours including defaults);
alter table workflow_stats_days rename column hour to day;
alter table workflow_stats_days add primary key (tenant_id, test, app_id, day);
create index workflow_stats_days_tenant on workflow_stats_days (tenant_id, test, day);

insert into workflow_stats_days (tenant_id, test, app_id, day, started, running, suspended, ended_done,
                                 ended_killed, completed, killed, todo_handled, todo_wait_seconds)
select h.tenant_id, h.test, h.app_id, date_trunc('day', h.hour at time zone z.tz) at time zone z.tz,
       sum(h.started), sum(h.running), sum(h.suspended), sum(h.ended_done), sum(h.ended_killed),
       sum(h.completed), sum(h.killed), sum(h.todo_handled), sum(h.todo_wait_seconds)
from workflow_stats_hours h
join (select id, coalesce(settings->'workflow'->'statistics'->>'timeZone', 'UTC') as tz from tenants) z
  on z.id = h.tenant_id
group by 1, 2, 3, 4;
