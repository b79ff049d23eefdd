-- The file service (spec 001 "File record"). File contents are blobs addressed by their SHA-256, so
-- identical content is stored once however many files share it.

create table blobs (
  sha256 text primary key,
  size bigint not null check (size >= 0),
  storage_key text not null,
  -- touched by every upload of this content; unreferenced blobs are removed once this is old
  last_used timestamptz not null default now()
);

create table files (
  id uuid primary key,
  name text not null,
  mime text not null default 'application/octet-stream',
  size bigint not null check (size >= 0),
  sha1_hash text not null,
  sha256 text not null references blobs (sha256),
  tags text not null default '',
  -- thumbnail sizes to make, `NxM`, at most 5
  thumbsizes text[] not null default '{}',
  -- spec 001's meta without the file token: secure, tokenExpire, tokenDisposable, and free keys
  meta jsonb not null default '{}',
  -- the file-service token of meta.token, hashed; null when none is set
  token_hash text,
  -- who uploaded it: that application may replace, delete and change it
  application_id text references applications (id) on delete set null,
  user_id uuid references users (id) on delete set null,
  tenant_id uuid references tenants (id) on delete cascade,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index files_sha256 on files (sha256);

create table file_thumbs (
  file_id uuid not null references files (id) on delete cascade,
  -- `NxM` as asked for
  size text not null,
  -- the content the thumbnail was made from, so a replaced file's old thumbnails are never served
  source_sha256 text not null,
  storage_key text not null,
  mime text not null,
  bytes integer not null,
  primary key (file_id, size)
);

-- downloads of secure files with a user token, for audit
create table file_downloads (
  id bigint generated always as identity primary key,
  file_id uuid not null references files (id) on delete cascade,
  user_id uuid references users (id) on delete set null,
  application_id text,
  at timestamptz not null default now()
);
create index file_downloads_file on file_downloads (file_id, at);
