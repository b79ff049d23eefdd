-- Tenants (enterprises): every row that belongs to a tenant carries its id.
create table tenants (
  id uuid primary key default gen_random_uuid(),
  domain text not null unique,
  name text not null,
  style text,
  logo text,
  banner text,
  copyright text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
