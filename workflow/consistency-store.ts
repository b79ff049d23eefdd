import type { Queryable } from "../runtime/database.ts";

/** A process whose rows disagree with each other, and the rule they break. */
export interface Inconsistency {
  processId: string;
  rule: string;
}

/**
 * The rules a process's rows keep whatever commands ran on it, each a query naming the processes
 * that break it (among `processIds`, or every process when null). Events are only required of
 * processes started since the outbox's oldest kept event (retention deletes delivered ones).
 */
export async function readInconsistencies(
  sql: Queryable,
  processIds: readonly string[] | null,
  limit: number,
): Promise<Inconsistency[]> {
  const ids = processIds as string[] | null;
  const rows = await sql<Inconsistency[]>`
    with p as (
      select * from workflow_processes where ${ids}::uuid[] is null or id = any(${ids}::uuid[])),
    kept as (
      select p.id from p
      where p.created_at >= coalesce((select min(created_at) from workflow_events), '-infinity'))
    select * from (
      select distinct d.process_id as "processId", 'a to-do row of a task not to do' as rule
      from workflow_todo d join p on p.id = d.process_id join workflow_tasks t on t.id = d.task_id
      where t.status <> 'todo'
      union all
      select distinct t.process_id, 'a task to do that is nobody''s to-do'
      from workflow_tasks t join p on p.id = t.process_id
      where t.status = 'todo'
        and not exists (select from workflow_todo d where d.task_id = t.id)
      union all
      select distinct t.process_id, 'a candidate of a task to do without its to-do row (or a delegate''s)'
      from workflow_tasks t join p on p.id = t.process_id, unnest(t.candidates) as c(user_id)
      where t.status = 'todo'
        and not exists (select from workflow_todo d
                        where d.task_id = t.id and (d.user_id = c.user_id or d.entrusted_by = c.user_id))
      union all
      select p.id, 'a process going on with no task open'
      from p where p.status in ('doing', 'suspended')
        and not exists (select from workflow_tasks t
                        where t.process_id = p.id and t.status in ('todo', 'waiting', 'subprocess'))
      union all
      select p.id, 'an ended process with a task to do'
      from p where p.status in ('done', 'killed')
        and exists (select from workflow_tasks t where t.process_id = p.id and t.status = 'todo')
      union all
      select p.id, 'an end time that does not match the status'
      from p where (p.status in ('done', 'killed')) <> (p.ended_at is not null)
      union all
      select p.id, 'no inbox row of its owner'
      from p where not exists (select from workflow_inbox i
                               where i.process_id = p.id and i.user_id = p.owner_id and i.owner)
      union all
      select distinct i.process_id, 'an inbox row with another status than its process'
      from workflow_inbox i join p on p.id = i.process_id where i.status <> p.status
      union all
      select t.process_id, 'a handled task with no activity'
      from workflow_tasks t join p on p.id = t.process_id
      where t.status = 'done' and t.handler_id is not null
        and not exists (select from workflow_activities a where a.task_id = t.id)
      union all
      select k.id, 'not exactly one process.started event'
      from kept k
      where (select count(*) from workflow_events e where e.process_id = k.id and e.type = 'process.started') <> 1
      union all
      select t.process_id, 'a task to do without its todo.created event'
      from workflow_tasks t join kept k on k.id = t.process_id
      where t.status = 'todo'
        and not exists (select from workflow_events e where e.task_id = t.id and e.type = 'todo.created')
      union all
      select t.process_id, 'a task handled more often than it became a to-do'
      from workflow_tasks t join kept k on k.id = t.process_id
      where (select count(*) from workflow_events e where e.task_id = t.id and e.type = 'todo.done')
          > (select count(*) from workflow_events e where e.task_id = t.id and e.type = 'todo.created')
      union all
      select k.id, 'an ended process without its process.ended event'
      from kept k join p on p.id = k.id
      where p.status in ('done', 'killed')
        and not exists (select from workflow_events e
                        where e.process_id = k.id and e.type = 'process.ended' and e.payload->>'status' = p.status)
    ) found
    order by "processId", rule
    limit ${limit}`;
  return [...rows];
}
