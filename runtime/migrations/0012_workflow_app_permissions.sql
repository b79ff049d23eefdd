-- Who administers a workflow app (manages its processes) and who may view them as a guest, spec 001
-- 4.3, 4.4 and 4.12: one row per app, user and role, so the access grants of 7.x can add and take
-- away single rows. `source` says who wrote a row: the bootstrap file replaces only its own rows.
create table workflow_app_permissions (
  app_id uuid not null references workflow_apps (id) on delete cascade,
  user_id uuid not null references users (id) on delete cascade,
  tenant_id uuid not null references tenants (id) on delete cascade,
  role text not null check (role in ('admin', 'guest')),
  source text not null default 'bootstrap',
  created_at timestamptz not null default now(),
  primary key (app_id, role, user_id)
);
create index workflow_app_permissions_user on workflow_app_permissions (user_id, role, app_id);

-- 4.11 pages through an app's rated processes, and the app lists average their stars.
create index workflow_processes_rated on workflow_processes (app_id, test, updated_at desc) where rating is not null;
