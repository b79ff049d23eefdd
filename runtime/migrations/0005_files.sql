-- The file service's records (spec 001 "File record"); the bytes live in file storage under storage_key.

create table files (
  id uuid primary key,
  name text not null,
  mime text not null default 'application/octet-stream',
  size bigint not null check (size >= 0),
  sha1_hash text not null,
  storage_key text not null unique,
  tags text not null default '',
  -- spec 001's meta: secure, token, tokenExpire, tokenDisposable, thumbnail sizes, and free keys
  meta jsonb not null default '{}',
  -- the application that uploaded it (a signature upload, say), and its tenant if any
  application_id text references applications (id) on delete set null,
  tenant_id uuid references tenants (id) on delete cascade,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
