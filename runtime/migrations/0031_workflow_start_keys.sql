-- A start sent with an `Idempotency-Key` header: the process it started, so the same start sent
-- again (its answer lost on the way) answers that process instead of starting a second. A key is
-- the calling application's, per tenant and data mode; it is kept a day and goes with its process.
create table workflow_start_keys (
  tenant_id uuid not null references tenants (id) on delete cascade,
  test boolean not null,
  client_id text not null,
  key text not null,
  -- a digest of what the start asked, so a key sent again with another request is refused
  request_digest text not null,
  process_id uuid references workflow_processes (id) on delete cascade,
  created_at timestamptz not null default now(),
  primary key (tenant_id, test, client_id, key)
);
