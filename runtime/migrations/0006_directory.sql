-- The organisation directory of spec 001 (users, departments, posts, who holds which post where)
-- and the enterprise feeds that keep it in step with each tenant's own systems.
--
-- `source` says who wrote a row: `FEED` rows belong to the tenant's feed and follow it; any other
-- value (`PUSH` by default, for the triple API) marks a manual entry the feed leaves alone.

create extension if not exists pg_trgm;

alter table users
  add column title text,
  add column express boolean not null default false,
  add column description text,
  add column source text not null default 'PUSH',
  add column preferences jsonb not null default '{}',
  add column feed_timestamp bigint,
  -- What 5.5's keyword search matches against: account, name, e-mail and phone, lower-cased.
  add column search_text text generated always as (
    lower(account || ' ' || name || ' ' || coalesce(email, '') || ' ' || coalesce(phone, ''))
  ) stored;
create index users_search_text on users using gin (search_text gin_trgm_ops);
create index users_account_prefix on users (tenant_id, lower(account) text_pattern_ops);
create index users_name_prefix on users (tenant_id, name text_pattern_ops);

create table departments (
  id uuid primary key default gen_random_uuid(),
  tenant_id uuid not null references tenants (id),
  code text not null,
  name text not null,
  description text,
  -- by code, so a department may arrive in a feed before its parent
  parent_code text,
  independent boolean not null default false,
  tags text,
  meta jsonb,
  source text not null default 'PUSH',
  disabled boolean not null default false,
  feed_timestamp bigint,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (tenant_id, code)
);

create table posts (
  id uuid primary key default gen_random_uuid(),
  tenant_id uuid not null references tenants (id),
  code text not null,
  name text not null,
  description text,
  formal boolean not null default false,
  tags text,
  meta jsonb,
  biz_types jsonb not null default '[]',
  source text not null default 'PUSH',
  disabled boolean not null default false,
  feed_timestamp bigint,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (tenant_id, code)
);

-- A user holding a post in a department. It counts only while it and its user, department and
-- post are all enabled, so re-enabling a department brings its occupancies back.
create table occupancies (
  id uuid primary key default gen_random_uuid(),
  tenant_id uuid not null references tenants (id),
  user_id uuid not null references users (id) on delete cascade,
  dept_id uuid not null references departments (id) on delete cascade,
  post_id uuid not null references posts (id) on delete cascade,
  -- student or staff number
  user_code text,
  bizes jsonb not null default '[]',
  source text not null default 'PUSH',
  disabled boolean not null default false,
  feed_timestamp bigint,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (user_id, dept_id, post_id)
);
create index occupancies_dept_post on occupancies (dept_id, post_id);
create index occupancies_post on occupancies (post_id);

create table tenant_feeds (
  tenant_id uuid primary key references tenants (id) on delete cascade,
  base_url text not null,
  -- each address: the pattern with `{entity}` replaced by users, depts, posts or occupies
  address_pattern text not null,
  -- the environment variable holding the Authorization header; the value never enters the database
  authorization_env text,
  interval_seconds integer not null,
  timeout_seconds integer not null,
  enabled boolean not null default true,
  -- Unix seconds: start of the last successful run, the `timestamp` the next run asks from
  synced_since bigint,
  next_run_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

create table feed_runs (
  id uuid primary key default gen_random_uuid(),
  tenant_id uuid not null references tenants (id) on delete cascade,
  trigger text not null check (trigger in ('schedule', 'manual')),
  status text not null check (status in ('running', 'succeeded', 'failed', 'abandoned')),
  since bigint,
  started_at timestamptz not null default now(),
  heartbeat_at timestamptz not null default now(),
  finished_at timestamptz,
  -- per entity: received, applied, rejected, disabled, full
  counts jsonb not null default '{}',
  error text
);
create unique index feed_runs_one_running on feed_runs (tenant_id) where status = 'running';
create index feed_runs_recent on feed_runs (tenant_id, started_at desc);

create table feed_rejects (
  run_id uuid not null references feed_runs (id) on delete cascade,
  entity text not null,
  row_index integer not null,
  key text,
  reason text not null
);
create index feed_rejects_run on feed_rejects (run_id);

-- Rows of a run in progress, applied together in one transaction once every address answered.
create unlogged table feed_stage_users (
  run_id uuid not null, ord integer not null, account text not null, name text not null,
  email text, phone text, disabled boolean not null, ts bigint
);
create unlogged table feed_stage_depts (
  run_id uuid not null, ord integer not null, code text not null, name text not null,
  parent_code text, independent boolean not null, disabled boolean not null, ts bigint
);
create unlogged table feed_stage_posts (
  run_id uuid not null, ord integer not null, code text not null, name text not null,
  formal boolean not null, biz_types jsonb not null, disabled boolean not null, ts bigint
);
create unlogged table feed_stage_occupies (
  run_id uuid not null, ord integer not null, account text not null, dept_code text not null,
  post_code text not null, user_code text, bizes jsonb not null, disabled boolean not null, ts bigint
);
