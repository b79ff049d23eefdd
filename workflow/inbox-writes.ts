import type postgres from "postgres";
import type { Queryable } from "../runtime/database.ts";
import type { EngineResult } from "./engine/engine-result.ts";

/**
 * The inbox rows a command writes with its outcome, as CTEs of the same statement: each user of
 * the process gets one row (see 0013_workflow_inbox.sql), written by one upsert that merges what
 * the row held with what the command made of the user, since a statement's CTEs see one snapshot
 * and may not change a row twice. `header` is the CTE holding the process as written.
 */

type Fragment = postgres.Fragment;

interface Role {
  user_id: string;
  owner: boolean;
  handled: boolean;
  entrusted: boolean;
  cc: boolean;
  action_at: string | null;
}

const INBOX_COLUMNS = `user_id, process_id, tenant_id, test, app_id, entry, owner, handled, entrusted, cc, status,
  archived, things, milestone, rating, states, created_at, updated_at, action_at, cc_created_at, cc_updated_at, read_at`;

/** The steps the process stays at: those of its to-do tasks. */
export function statesOf(result: EngineResult): string[] {
  return [...new Set(result.state.tasks.filter((task) => task.status === "todo").map((task) => task.node))];
}

/** What the command made of each user, merged into one role a user: initiator, handler, copied. */
function rolesOf(result: EngineResult, owner: string | undefined): Role[] {
  const roles = new Map<string, Role>();
  const role = (user: string, change: Partial<Omit<Role, "user_id">>) => {
    const held = roles.get(user);
    if (!held) {
      roles.set(user, {
        user_id: user,
        owner: false,
        handled: false,
        entrusted: false,
        cc: false,
        action_at: null,
        ...change,
      });
      return;
    }
    held.owner ||= change.owner ?? false;
    held.handled ||= change.handled ?? false;
    held.entrusted ||= change.entrusted ?? false;
    held.cc ||= change.cc ?? false;
    // ISO times of one clock compare as strings.
    if (change.action_at && (held.action_at === null || change.action_at > held.action_at))
      held.action_at = change.action_at;
  };
  if (owner) role(owner, { owner: true });
  for (const task of [...result.tasksCreated, ...result.tasksChanged]) {
    if (task.status !== "done" || task.handledAt === null) continue;
    const at = new Date(task.handledAt).toISOString();
    if (task.handler) role(task.handler, { handled: true, action_at: at });
    if (task.actualUser && task.actualUser !== task.handler)
      role(task.actualUser, { handled: true, entrusted: true, action_at: at });
  }
  for (const event of result.events) {
    if (event.type === "cc") for (const user of event.users) role(user, { cc: true });
  }
  return [...roles.values()];
}

/**
 * The search row of a new process and the inbox rows of every user of the process, refreshed with
 * its status, times, milestone, rating and states. `newTodo` says whether the statement inserts
 * to-do rows as `new_todo` (returning `user_id, entrusted_by`): delegates who got one are marked.
 * A new process has no rows yet, so its users' rows are inserted without reading any.
 */
export function inboxCtes(
  sql: Queryable,
  processId: string,
  result: EngineResult,
  options: { now: Date; newOwner: string | undefined; newTodo: boolean },
): Fragment[] {
  const { now, newOwner, newTodo } = options;
  const ctes: Fragment[] = [];
  if (newOwner) {
    ctes.push(sql`search as (
      insert into workflow_process_search (process_id, tenant_id, test, text, words)
      select h.id, h.tenant_id, h.test, t.text, to_tsvector('simple', workflow_search_words(t.text))
      from header h join users u on u.id = h.owner_id
      cross join lateral (select lower(concat_ws(' ', h.name, h.tags, u.account, u.name, h.entry)) as text) t)`);
  }
  ctes.push(sql`inbox_role as (
      select * from jsonb_to_recordset(${sql.json(rolesOf(result, newOwner) as never)})
        as r(user_id uuid, owner boolean, handled boolean, entrusted boolean, cc boolean, action_at timestamptz))`);
  const delegates = sql`(select distinct user_id from new_todo where entrusted_by is not null)`;
  const delegated = newTodo ? sql`or e.user_id is not null` : sql``;
  const process = sql`h.id, h.tenant_id, h.test, h.app_id, h.entry`;
  const copied = sql`h.status, h.archived, h.things <> '{}', (h.milestone ->> 'percent')::int, h.rating,
             ${statesOf(result)}::text[], h.created_at, h.updated_at`;
  if (newOwner) {
    ctes.push(sql`inbox as (
      insert into workflow_inbox (${sql.unsafe(INBOX_COLUMNS)})
      select user_id, ${process}, coalesce(r.owner, false), coalesce(r.handled, false),
             coalesce(r.entrusted, false) ${delegated}, coalesce(r.cc, false), ${copied}, r.action_at,
             case when r.cc then ${now}::timestamptz end, case when r.cc then ${now}::timestamptz end, null
      from ${newTodo ? sql`inbox_role r full join ${delegates} e using (user_id)` : sql`inbox_role r`}
      cross join header h)`);
    return ctes;
  }
  ctes.push(sql`inbox as (
      insert into workflow_inbox (${sql.unsafe(INBOX_COLUMNS)})
      select coalesce(i.user_id, r.user_id${newTodo ? sql`, e.user_id` : sql``}), ${process},
             coalesce(i.owner, false) or coalesce(r.owner, false),
             coalesce(i.handled, false) or coalesce(r.handled, false),
             coalesce(i.entrusted, false) or coalesce(r.entrusted, false) ${delegated},
             coalesce(i.cc, false) or coalesce(r.cc, false),
             ${copied}, greatest(i.action_at, r.action_at),
             case when r.cc then coalesce(i.cc_created_at, ${now}) else i.cc_created_at end,
             case when r.cc then ${now} else i.cc_updated_at end,
             case when r.cc then null else i.read_at end
      from (select * from workflow_inbox where process_id = ${processId}) i
      full join inbox_role r on r.user_id = i.user_id
      ${newTodo ? sql`full join ${delegates} e on e.user_id = coalesce(i.user_id, r.user_id)` : sql``}
      cross join header h
      on conflict (user_id, process_id) do update set
        owner = excluded.owner, handled = excluded.handled, entrusted = excluded.entrusted, cc = excluded.cc,
        status = excluded.status, archived = excluded.archived, things = excluded.things,
        milestone = excluded.milestone, rating = excluded.rating, states = excluded.states,
        updated_at = excluded.updated_at, action_at = excluded.action_at, cc_created_at = excluded.cc_created_at,
        cc_updated_at = excluded.cc_updated_at, read_at = excluded.read_at)`);
  return ctes;
}

/**
 * For a statement that writes to-do rows after the outcome's (a task taken back and given again):
 * the delegates who got one are marked, their rows made from the process as the outcome left it.
 */
export function delegatedInboxCte(sql: Queryable, processId: string, states: string[]): Fragment {
  return sql`inbox_delegate as (
    insert into workflow_inbox (${sql.unsafe(INBOX_COLUMNS)})
    select d.user_id, p.id, p.tenant_id, p.test, p.app_id, p.entry, false, false, true, false, p.status, p.archived,
           p.things <> '{}', (p.milestone ->> 'percent')::int, p.rating, ${states}::text[], p.created_at,
           p.updated_at, null, null, null, null
    from (select distinct user_id from new_todo where entrusted_by is not null) d
    join workflow_processes p on p.id = ${processId}
    on conflict (user_id, process_id) do update set entrusted = true)`;
}
