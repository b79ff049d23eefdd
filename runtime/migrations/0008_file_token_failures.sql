-- Wrong file-service tokens per file and client address: too many lock that address out of that
-- file for a while, so a short token cannot be guessed by trying.
create table file_token_failures (
  file_id uuid not null references files (id) on delete cascade,
  address text not null,
  failures integer not null,
  window_started_at timestamptz not null,
  locked_until timestamptz,
  primary key (file_id, address)
);
