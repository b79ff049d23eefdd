-- The tenant's tags (spec 001's `tag`: what apps and processes are tagged with) and memberships
-- (the tenant's accounts with outside providers, found by the provider's name whatever its case).
-- Both are the tenant's configuration, written by operators, and the same for both data modes, as
-- the directory is.
create table tenant_tags (
  id uuid primary key default gen_random_uuid(),
  tenant_id uuid not null references tenants (id) on delete cascade,
  name text not null,
  description text,
  index integer not null default 0,
  palette text,
  visible boolean not null default true,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (tenant_id, name)
);

create table tenant_memberships (
  id uuid primary key default gen_random_uuid(),
  tenant_id uuid not null references tenants (id) on delete cascade,
  provider text not null,
  code text not null,
  name text,
  description text,
  uri text,
  attributes jsonb not null default '{}'::jsonb,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index tenant_memberships_provider on tenant_memberships (tenant_id, lower(provider));
