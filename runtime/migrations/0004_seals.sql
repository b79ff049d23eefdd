-- Electronic seals (spec 000's eSignCode): per tenant, or platform-wide when tenant_id is null.

create table seals (
  id uuid primary key default gen_random_uuid(),
  tenant_id uuid references tenants (id) on delete cascade,
  code text not null,
  name text not null,
  -- the PNG as uploaded; small (at most 2 MB), read by sign workers and cached by id and version
  image bytea not null,
  width real not null check (width > 0),
  height real not null check (height > 0),
  version integer not null default 1,
  updated_at timestamptz not null default now()
);
-- one code per tenant, and one platform-wide seal per code
create unique index seals_tenant_code on seals (tenant_id, code) where tenant_id is not null;
create unique index seals_platform_code on seals (code) where tenant_id is null;
