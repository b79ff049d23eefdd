-- What the bootstrap file said of each entry when it was last applied, as a digest: at start, an
-- entry the file still says the same about is left alone, so what operators changed since (a
-- rotated secret, a withdrawn seal) survives a restart.

create table bootstrap_entries (
  kind text not null,
  key text not null,
  digest text not null,
  applied_at timestamptz not null default now(),
  primary key (kind, key)
);
