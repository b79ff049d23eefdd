-- Spec 001 9.6's code tables: items, each with a code unique in its table and a name unique in the
-- tenant. Clients write them through the API, so, like the processes, they belong to a data mode:
-- /apis/v2d's test items (test) are apart from /apis/v2's.
create table code_items (
  id uuid primary key default gen_random_uuid(),
  tenant_id uuid not null references tenants (id) on delete cascade,
  test boolean not null,
  table_code text not null,
  code text not null,
  name text not null,
  -- Another item's code, of this table or another; not checked, as spec 001 allows.
  parent_code text,
  description text,
  index integer not null default 0,
  attributes jsonb not null default '{}'::jsonb,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  constraint code_items_code unique (tenant_id, test, table_code, code),
  constraint code_items_name unique (tenant_id, test, name)
);
