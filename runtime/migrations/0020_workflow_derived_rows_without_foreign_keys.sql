-- The rows the engine derives from a process (to-do rows, inbox rows, the search row), its journal
-- (activities) and who handled its tasks carry no foreign keys, as the history tables of Flowable
-- and Camunda carry none. The engine writes them in the same statement as the process and tasks
-- they come from, with users it resolved from the directory or the caller's token, and the platform
-- never deletes users, processes or tasks, so the keys guarded nothing. What they cost is every
-- command's: a check per row and a key-share lock on the user rows they name, so that concurrent
-- handlings by one approver all locked that approver's row. The process and its tasks, branches and
-- copies keep theirs.
alter table workflow_tasks
  drop constraint workflow_tasks_handler_id_fkey,
  drop constraint workflow_tasks_actual_user_id_fkey;
alter table workflow_activities
  drop constraint workflow_activities_process_id_fkey,
  drop constraint workflow_activities_user_id_fkey;
alter table workflow_todo
  drop constraint workflow_todo_user_id_fkey,
  drop constraint workflow_todo_task_id_fkey,
  drop constraint workflow_todo_entrusted_by_fkey;
alter table workflow_inbox
  drop constraint workflow_inbox_user_id_fkey,
  drop constraint workflow_inbox_process_id_fkey;
alter table workflow_process_search
  drop constraint workflow_process_search_process_id_fkey;
