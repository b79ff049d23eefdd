-- What the console's process search and stuck list read in order: a tenant owner's processes by
-- serial number, and the to-do tasks by how long they have waited.
create index workflow_processes_owner on workflow_processes (owner_id, entry desc);
create index workflow_tasks_todo_since on workflow_tasks (assigned_at, id) where status = 'todo';
-- How many processes each version has, counted up to a bound by the console.
create index workflow_processes_version on workflow_processes (version_id);
