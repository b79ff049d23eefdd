-- The items (things) a process's data names, so 3.5 finds the tasks that wait for an item.
alter table workflow_processes add column things text[] not null default '{}';
create index workflow_processes_things on workflow_processes using gin (things) where things <> '{}';
