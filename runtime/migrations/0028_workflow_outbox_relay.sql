-- The outbox relay (docs/outbox-relay.md). An event's `id` is taken when its row is inserted, not
-- when it commits, so a reader of `id > cursor` would pass over an event whose transaction commits
-- after a later one's was read. The relay reads by `position` instead: given only to committed
-- rows, by one sequencer at a time, so positions become visible in increasing order.
alter table workflow_events add column position bigint;
-- The rows still to be given a position: few, and read in id order.
create index workflow_events_unsequenced on workflow_events (id) where position is null;
create unique index workflow_events_position on workflow_events (position) where position is not null;
create sequence workflow_event_positions as bigint;

-- How far each subscriber of the relay has got: it accepted every event up to `position`. A
-- subscriber starts where the outbox was when its cursor was made: events already written then
-- (ids up to `starts_after_id`, numbered or not) are passed over, not offered.
create table workflow_outbox_cursors (
  subscriber text primary key,
  position bigint not null default 0,
  starts_after_id bigint not null default 0,
  updated_at timestamptz not null default now()
);
