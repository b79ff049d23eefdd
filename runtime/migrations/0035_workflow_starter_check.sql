-- A start of an app limited to starters writes its process only for one of them: the insert itself
-- asks, so the check costs the start no statement of its own, and a refused start writes nothing.
create function workflow_not_a_starter() returns boolean language plpgsql as $$
begin
  raise exception 'the user may not start this app' using errcode = 'WF403';
end
$$;
