-- The workflow platform of spec 001: apps and their immutable versions, and the runtime state of
-- processes in rows (tasks, who may handle them, parallel branches, copies), with an activity log
-- and an event outbox written in the same transaction as every state change.
--
-- `test` is the data mode: false for /apis/v2 (formal data), true for /apis/v2d (test data). The
-- two never meet: every query of the runtime tables names its mode.

create table workflow_apps (
  id uuid primary key default gen_random_uuid(),
  tenant_id uuid not null references tenants (id) on delete cascade,
  code text not null,
  name text not null,
  abbreviation text,
  description text,
  -- comma separated; the first is the main category
  tags text not null default '',
  icon text,
  palette text,
  department text,
  contact text,
  recommendation integer not null default 0,
  visible boolean not null default true,
  ready boolean not null default true,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (tenant_id, code)
);

-- A deployed definition never changes; processes keep the version they started on.
create table workflow_versions (
  id uuid primary key default gen_random_uuid(),
  app_id uuid not null references workflow_apps (id) on delete cascade,
  number integer not null,
  name text,
  definition jsonb not null,
  -- SHA-256 of the definition: deploying the same definition again answers the same version
  digest text not null,
  -- online for formal starts (/apis/v2) and for test starts (/apis/v2d)
  online_formal boolean not null default false,
  online_test boolean not null default false,
  created_at timestamptz not null default now(),
  unique (app_id, number),
  unique (app_id, digest)
);

create table workflow_processes (
  id uuid primary key default gen_random_uuid(),
  -- the serial number (`entry`), unique across the platform
  entry bigint generated always as identity unique,
  tenant_id uuid not null references tenants (id) on delete cascade,
  test boolean not null,
  app_id uuid not null references workflow_apps (id),
  version_id uuid not null references workflow_versions (id),
  name text not null,
  tags text not null default '',
  owner_id uuid not null references users (id),
  -- who started it when it was started for the owner (a sys token naming the owner, a delegate)
  actual_user_id uuid references users (id),
  status text not null check (status in ('doing', 'suspended', 'done', 'killed')),
  priority text not null default 'normal' check (priority in ('low', 'normal', 'important', 'critical')),
  rating integer,
  review text,
  data jsonb not null default '{}',
  business_id text,
  milestone jsonb,
  screen text,
  archived boolean not null default false,
  parent_process_id uuid references workflow_processes (id),
  parent_task_id uuid,
  -- 0 for a process started by a caller, parent's depth + 1 for a sub-process (at most 16)
  depth integer not null default 0,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  ended_at timestamptz
);
create index workflow_processes_app on workflow_processes (app_id, test, created_at);
create index workflow_processes_parent on workflow_processes (parent_process_id) where parent_process_id is not null;
create index workflow_processes_business on workflow_processes (tenant_id, business_id) where business_id is not null;

create table workflow_tasks (
  id uuid primary key,
  process_id uuid not null references workflow_processes (id) on delete cascade,
  node text not null,
  branch text not null default '',
  status text not null check (status in ('todo', 'waiting', 'subprocess', 'done', 'cancelled')),
  -- who may handle it, as the step's rules named them when it was created (delegates are in the to-do rows)
  candidates uuid[] not null default '{}',
  group_id uuid not null,
  turn integer not null default 0,
  handler_id uuid references users (id),
  actual_user_id uuid references users (id),
  action text,
  remark text,
  review text,
  thing text,
  screen text,
  assigned_at timestamptz not null,
  handled_at timestamptz,
  expires_at timestamptz,
  rendered_at timestamptz,
  -- what handling it did, so withdrawing it can undo exactly that
  trail jsonb,
  child_process_id uuid references workflow_processes (id),
  -- a task row is changed only by the one that read this version
  version integer not null default 0
);
create index workflow_tasks_process on workflow_tasks (process_id);
create index workflow_tasks_child on workflow_tasks (child_process_id) where child_process_id is not null;

create table workflow_branches (
  process_id uuid not null references workflow_processes (id) on delete cascade,
  path text not null,
  parent text not null,
  split text not null,
  fork text not null,
  item integer,
  status text not null check (status in ('active', 'arrived', 'joined', 'cancelled')),
  primary key (process_id, path)
);

-- The to-do inbox: one row per user and open task they may handle, written when the task becomes
-- to-do (delegation resolved then) and removed when it is handled, withdrawn or cancelled, so 2.3
-- reads one index range and never joins candidates, delegation or the directory.
create table workflow_todo (
  user_id uuid not null references users (id) on delete cascade,
  task_id uuid not null references workflow_tasks (id) on delete cascade,
  process_id uuid not null,
  tenant_id uuid not null,
  test boolean not null,
  -- the user this task was assigned to, when it reached this user by delegation
  entrusted_by uuid references users (id),
  -- started by someone else / waits for an item to be collected
  sep boolean not null,
  thing boolean not null default false,
  suspended boolean not null default false,
  assigned_at timestamptz not null,
  primary key (user_id, task_id)
);
create index workflow_todo_list on workflow_todo (user_id, test, assigned_at desc, task_id) where not suspended;
create index workflow_todo_task on workflow_todo (task_id);
create index workflow_todo_process on workflow_todo (process_id);

-- Copies (cc): a process shown to a user, with its read state.
create table workflow_cc (
  process_id uuid not null references workflow_processes (id) on delete cascade,
  user_id uuid not null references users (id) on delete cascade,
  tenant_id uuid not null,
  test boolean not null,
  node text not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  read_at timestamptz,
  primary key (process_id, user_id)
);
create index workflow_cc_user on workflow_cc (user_id, test, updated_at desc);

-- Every state change, as spec 001's activity records (4.13).
create table workflow_activities (
  id bigint generated always as identity primary key,
  tenant_id uuid not null,
  test boolean not null,
  process_id uuid references workflow_processes (id) on delete cascade,
  entry bigint,
  app_id uuid,
  category text not null check (category in ('DEFINITION', 'INSTANCE', 'MESSENGER', 'NOTIFICATION', 'DATABINDING')),
  level text not null check (level in ('VERBOSE', 'INFO', 'WARNING', 'ERROR')),
  tags text not null default '',
  description text not null,
  user_id uuid references users (id),
  task_id uuid,
  created_at timestamptz not null default now()
);
create index workflow_activities_process on workflow_activities (process_id, id desc);
create index workflow_activities_tenant on workflow_activities (tenant_id, test, id desc);

-- The event outbox: a row per state change others learn of (push, notifications to new
-- assignees, messenger callbacks), its id increasing with every write.
create table workflow_events (
  id bigint generated always as identity primary key,
  tenant_id uuid not null,
  test boolean not null,
  process_id uuid not null,
  type text not null,
  task_id uuid,
  users uuid[] not null default '{}',
  payload jsonb not null default '{}',
  created_at timestamptz not null default now()
);
create index workflow_events_tenant on workflow_events (tenant_id, id);

-- Delegation: `entrustee` handles `entruster`'s tasks of one app (or every app) between two times.
create table workflow_entrustments (
  id uuid primary key default gen_random_uuid(),
  tenant_id uuid not null references tenants (id) on delete cascade,
  entruster_id uuid not null references users (id) on delete cascade,
  entrustee_id uuid not null references users (id) on delete cascade,
  app_id uuid references workflow_apps (id) on delete cascade,
  valid_from timestamptz not null,
  valid_to timestamptz not null,
  created_at timestamptz not null default now(),
  check (entruster_id <> entrustee_id),
  check (valid_from < valid_to)
);
create unique index workflow_entrustments_pair on workflow_entrustments (entruster_id, entrustee_id, coalesce(app_id, '00000000-0000-0000-0000-000000000000'));
create index workflow_entrustments_entrustee on workflow_entrustments (entrustee_id);

-- Items to collect (11.x) and their pickup codes.
create table workflow_things (
  id uuid primary key default gen_random_uuid(),
  tenant_id uuid not null references tenants (id) on delete cascade,
  code text not null,
  name text not null,
  created_at timestamptz not null default now(),
  unique (tenant_id, code)
);

create table workflow_pickups (
  code text primary key,
  thing_id uuid not null references workflow_things (id) on delete cascade,
  tenant_id uuid not null,
  -- who may collect with it; null: whoever holds the code
  user_id uuid references users (id) on delete cascade,
  expires_at timestamptz not null,
  used_at timestamptz,
  used_by uuid references users (id),
  created_at timestamptz not null default now()
);
create index workflow_pickups_thing on workflow_pickups (thing_id);
