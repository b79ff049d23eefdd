-- A process's revision counts the writes of the engine's state to it (commands, data changes). A
-- command that read the process without locking it writes only while the revision is still the one
-- it read; otherwise its statement fails with a serialization failure, writes nothing, and the
-- command runs again under the process's lock.
alter table workflow_processes add column revision integer not null default 0;

create function workflow_stale_revision() returns boolean language plpgsql as $$
begin
  raise exception 'the process changed after it was read' using errcode = 'serialization_failure';
end
$$;
