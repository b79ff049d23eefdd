-- Notification channels, configured through the bootstrap file, the admin API or the CLI and read
-- by every process, which follows changes within seconds. A credential is best given as
-- `{"env": "NAME"}`, a variable of the worker processes: only its name is stored here.
create table channels (
  name text primary key,
  plugin text not null,
  config jsonb not null default '{}',
  operator_application text,
  permitted_applications text[] not null default '{}',
  rate_per_second double precision,
  max_in_flight integer not null default 32,
  updated_at timestamptz not null default now()
);
