-- Workflow statistics (spec 001 8.x, docs/statistics.md), kept by the outbox subscriber
-- `workflow.statistics` for tenants whose `workflow.statistics` setting is on, so the operations
-- sum a few rows instead of counting processes.
--
-- One row per counted process: what makes each event count once (a start already here is not
-- counted again; a status change moves the process from its old status to its new one), and what
-- 8.2 counts at the edges of its range, where an hour is only partly inside.
create table workflow_stats_processes (
  process_id uuid primary key,
  tenant_id uuid not null,
  test boolean not null,
  app_id uuid not null,
  started_at timestamptz not null,
  -- the start of the tenant's local hour it started in: the bucket its status is counted in
  hour timestamptz not null,
  status text not null check (status in ('doing', 'suspended', 'done', 'killed'))
);
-- 8.2's partial hours: a tenant's processes started in an hour or two, of any app.
create index workflow_stats_processes_started on workflow_stats_processes (tenant_id, test, started_at, app_id);

-- Hourly buckets per tenant, data mode and app; `hour` is the start of a local hour of the tenant.
-- Processes by start hour: `started`, and how many of them are now in each status (8.2).
-- Processes by end hour: `completed`, `killed` (8.3). To-dos by the hour they were handled in:
-- how many, and the seconds they waited in all (8.4).
create table workflow_stats_hours (
  tenant_id uuid not null,
  test boolean not null,
  app_id uuid not null,
  hour timestamptz not null,
  started integer not null default 0,
  running integer not null default 0,
  suspended integer not null default 0,
  ended_done integer not null default 0,
  ended_killed integer not null default 0,
  completed integer not null default 0,
  killed integer not null default 0,
  todo_handled integer not null default 0,
  todo_wait_seconds bigint not null default 0,
  primary key (tenant_id, test, app_id, hour)
);
-- Every app of a tenant at once (`*`).
create index workflow_stats_hours_tenant on workflow_stats_hours (tenant_id, test, hour);
