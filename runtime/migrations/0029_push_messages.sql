-- Spec 001's push messages: a `task` or `cc` event for one user, kept for long polls that ask
-- `since` a time. `time` (Unix milliseconds) is strictly increasing per user and commits in its
-- order: each store takes the user's clock row (push_clocks) under its row lock and gives its
-- messages times after the clock's, at least the database's now. A second writer for the user
-- waits for the first to commit, so a reader that saw time t never later meets a message at or
-- before t, and two messages in one millisecond still get two times. The pair (user, time) is the
-- key: a poll reads its user's messages after `since` in time order from it.

create table push_clocks (
  user_id uuid primary key references users (id) on delete cascade,
  -- The time of the user's latest message; 0 made by a poll before the user's first message.
  last_time bigint not null
);

create table push_messages (
  user_id uuid not null references users (id) on delete cascade,
  time bigint not null,
  tenant_id uuid not null references tenants (id),
  -- The data mode it belongs to: /apis/v2d's test data (true) or /apis/v2's formal data.
  test boolean not null,
  type text not null check (type in ('task', 'cc')),
  -- Empty when the publisher named no event.
  eid text not null check (length(eid) <= 256),
  primary key (user_id, time)
);

-- The retention's deletes by age, oldest first.
create index push_messages_by_time on push_messages (time);
