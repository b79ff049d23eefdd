-- A process's journal: every write of the engine's state to it, keyed by the revision it left (0
-- for the start), with what the engine decided a command by (docs/workflows.md, "The journal").
-- The consistency check replays it to see that the stored rows are what the commands make.
-- Processes written before it have no journal and are not replayed.
create table workflow_journal (
  process_id uuid not null references workflow_processes (id) on delete cascade,
  revision integer not null,
  kind text not null check (kind in ('command', 'data')),
  -- a command: {command, now, ids, answers}; a data change: the data it left
  body jsonb not null,
  created_at timestamptz not null default now(),
  primary key (process_id, revision)
);
