-- The per-user process inbox of spec 001 2.4-2.7: one row per user and process the user is part
-- of, with what they are to it (initiator, handler, delegate, copied) as flags, and the process's
-- fields the lists filter and sort on copied in. Every command writes the rows of its process in
-- the same statement as its outcome, so a list reads one user's rows and never joins candidates,
-- delegation or the directory to decide what it holds.
create table workflow_inbox (
  user_id uuid not null references users (id) on delete cascade,
  process_id uuid not null references workflow_processes (id) on delete cascade,
  tenant_id uuid not null,
  test boolean not null,
  app_id uuid not null,
  entry bigint not null,
  -- what the user is to the process: started it, handled one of its tasks (or had it handled on
  -- their behalf), was given one of its tasks by delegation, was copied
  owner boolean not null default false,
  handled boolean not null default false,
  entrusted boolean not null default false,
  cc boolean not null default false,
  -- the process as its last command left it
  status text not null,
  archived boolean not null default false,
  -- the process's data names an item to collect
  things boolean not null default false,
  -- percent of the last milestone reached, null before the first
  milestone integer,
  rating integer,
  -- the codes of the steps it stays at (its to-do tasks' steps)
  states text[] not null default '{}',
  created_at timestamptz not null,
  updated_at timestamptz not null,
  -- the user's latest handling of one of its tasks
  action_at timestamptz,
  cc_created_at timestamptz,
  cc_updated_at timestamptz,
  read_at timestamptz,
  primary key (user_id, process_id)
);
-- One index range per user and data mode for each list; rows of one process for the writers.
create index workflow_inbox_part on workflow_inbox (user_id, test, updated_at desc, process_id) where owner or handled;
create index workflow_inbox_cc on workflow_inbox (user_id, test, cc_updated_at desc, process_id) where cc;
create index workflow_inbox_unread on workflow_inbox (user_id, test, cc_updated_at desc, process_id) where cc and read_at is null;
create index workflow_inbox_entrusted on workflow_inbox (user_id, test, updated_at desc, process_id) where entrusted;
create index workflow_inbox_process on workflow_inbox (process_id);

-- An archived process's tasks leave the to-do list's index as a suspended one's do.
alter table workflow_todo add column archived boolean not null default false;
drop index workflow_todo_list;
create index workflow_todo_list on workflow_todo (user_id, test, assigned_at desc, task_id) where not suspended and not archived;

-- The words full-text search indexes: runs of CJK characters (which the default parser does not
-- split) as their overlapping bigrams, other words as they are, lower-cased.
create function workflow_search_words(text) returns text language sql immutable parallel safe as $$
  select coalesce(string_agg(
    case when m.parts[1] ~ '^[㐀-鿿豈-﫿]{2,}$'
         then (select string_agg(substr(m.parts[1], i, 2), ' ' order by i)
               from generate_series(1, length(m.parts[1]) - 1) as i)
         else m.parts[1] end, ' ' order by m.n), '')
  from regexp_matches(lower($1), '[㐀-鿿豈-﫿]+|[^[:space:][:punct:]㐀-鿿豈-﫿]+', 'g') with ordinality as m(parts, n)
$$;

-- What a keyword finds a process by: its title, tags, owner's account and name and serial number,
-- written when it starts; `text` for substring terms (trigram index), `words` for full-text ones.
create table workflow_process_search (
  process_id uuid primary key references workflow_processes (id) on delete cascade,
  tenant_id uuid not null,
  test boolean not null,
  text text not null,
  words tsvector not null
);
create index workflow_process_search_text on workflow_process_search using gin (text gin_trgm_ops);
create index workflow_process_search_words on workflow_process_search using gin (words);

-- The processes and people already there.
insert into workflow_process_search (process_id, tenant_id, test, text, words)
select p.id, p.tenant_id, p.test, t.text, to_tsvector('simple', workflow_search_words(t.text))
from workflow_processes p join users u on u.id = p.owner_id
cross join lateral (select lower(concat_ws(' ', p.name, p.tags, u.account, u.name, p.entry)) as text) t;

insert into workflow_inbox (user_id, process_id, tenant_id, test, app_id, entry, owner, handled, entrusted, cc,
                            status, archived, things, milestone, rating, states, created_at, updated_at, action_at,
                            cc_created_at, cc_updated_at, read_at)
select r.user_id, p.id, p.tenant_id, p.test, p.app_id, p.entry, bool_or(r.owner), bool_or(r.handled),
       bool_or(r.entrusted), bool_or(r.cc), p.status, p.archived, p.things <> '{}', (p.milestone ->> 'percent')::int,
       p.rating,
       array(select distinct node from workflow_tasks where process_id = p.id and status = 'todo'),
       p.created_at, p.updated_at, max(r.action_at), min(r.cc_created_at), max(r.cc_updated_at), max(r.read_at)
from (
  select owner_id as user_id, id as process_id, true as owner, false as handled, false as entrusted, false as cc,
         null::timestamptz as action_at, null::timestamptz as cc_created_at, null::timestamptz as cc_updated_at,
         null::timestamptz as read_at
  from workflow_processes
  union all
  select u.user_id, t.process_id, false, true, u.user_id = t.actual_user_id and t.actual_user_id <> t.handler_id, false,
         t.handled_at, null, null, null
  from workflow_tasks t cross join lateral (values (t.handler_id), (t.actual_user_id)) as u(user_id)
  where t.status = 'done' and u.user_id is not null
  union all
  select user_id, process_id, false, false, true, false, null, null, null, null
  from workflow_todo where entrusted_by is not null
  union all
  select user_id, process_id, false, false, false, true, null, created_at, updated_at, read_at from workflow_cc
) r join workflow_processes p on p.id = r.process_id
group by r.user_id, p.id;
