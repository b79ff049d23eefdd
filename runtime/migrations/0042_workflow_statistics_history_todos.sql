-- The history of a tenant switching statistics on (docs/statistics.md) counts the to-dos handled in
-- each process it counts, into 8.4's waits. A to-do handled just before the history's batch may
-- have its `todo.done` event still on the way to the statistics subscriber: the batch notes those
-- to-dos here, and the subscriber passes their events over, so each is counted once. Null for
-- nearly every process: only the relay's lag at the moment of the batch can leave any.
alter table workflow_stats_processes add column history_todos uuid[];
