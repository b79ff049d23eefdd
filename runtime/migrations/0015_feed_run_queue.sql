-- A run exists from the moment it is asked for: the admin API answers with its id, and a worker
-- later moves it from `queued` to `running`. At most one run per tenant waits; asking again while
-- it waits answers with that run.
alter table feed_runs drop constraint feed_runs_status_check;
alter table feed_runs add constraint feed_runs_status_check
  check (status in ('queued', 'running', 'succeeded', 'failed', 'abandoned'));
alter table feed_runs drop constraint feed_runs_trigger_check;
alter table feed_runs add constraint feed_runs_trigger_check check (trigger in ('schedule', 'manual', 'retry'));
alter table feed_runs add column queued_at timestamptz not null default now();
update feed_runs set queued_at = started_at;
alter table feed_runs alter column started_at drop not null, alter column started_at drop default;
create unique index feed_runs_one_queued on feed_runs (tenant_id) where status = 'queued';
drop index feed_runs_recent;
create index feed_runs_recent on feed_runs (tenant_id, queued_at desc);

-- When a failed run of a scheduled feed is tried again, before its next scheduled time.
alter table tenant_feeds add column retry_at timestamptz;
