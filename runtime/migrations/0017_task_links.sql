-- Spec 001 3.2's secure URL: when a sys token gives a process's first step to a quick user (an
-- account that cannot sign in), the step's URL carries a link token that opens that one task, as
-- that user, until it expires. Only the token's SHA-256 is kept.
create table workflow_task_links (
  token_hash bytea primary key,
  task_id uuid not null references workflow_tasks (id) on delete cascade,
  process_id uuid not null references workflow_processes (id) on delete cascade,
  tenant_id uuid not null references tenants (id) on delete cascade,
  test boolean not null,
  user_id uuid not null references users (id) on delete cascade,
  -- the application that started the process: the link acts for it, as its tokens do
  application_id text not null references applications (id) on delete cascade,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null
);
create index workflow_task_links_expiry on workflow_task_links (expires_at);
