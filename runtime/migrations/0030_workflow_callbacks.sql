-- Messenger callbacks (spec 001, Events 2): a version's `events` name URLs the platform posts its
-- processes' events to. The outbox relay hands each event to the callback subscriber, which writes
-- a delivery per (event, URL) in the relay's transaction; workers post them, in event order per
-- process and URL, with retries, until each is delivered or dead.

-- An app's signing secret. HMAC needs the secret itself, so it is kept encrypted (AES-256-GCM, the
-- app's id as associated data) rather than hashed; `key_id` names the key it was encrypted under, so
-- a process holding another key says so instead of failing obscurely.
create table workflow_callback_secrets (
  app_id uuid primary key references workflow_apps (id) on delete cascade,
  key_id text not null,
  nonce bytea not null,
  ciphertext bytea not null,
  tag bytea not null,
  created_at timestamptz not null default now()
);

create table workflow_callback_deliveries (
  id bigint generated always as identity primary key,
  -- the outbox event (workflow_events.id) and where it goes: a batch offered twice adds nothing
  event_id bigint not null,
  url text not null,
  -- the URL's host and port, for the bound on posts under way to one receiver
  host text not null,
  tenant_id uuid not null,
  test boolean not null,
  app_id uuid not null references workflow_apps (id) on delete cascade,
  process_id uuid not null,
  task_id uuid,
  -- the callback type (`taskCreated`, ...) and the exact JSON posted, fixed when the event is taken
  type text not null,
  body text not null,
  status text not null default 'pending' check (status in ('pending', 'delivered', 'dead')),
  -- posts tried since it was made or last replayed
  attempts integer not null default 0,
  replays integer not null default 0,
  -- when it is next due; while a post is under way, when that post's claim lapses
  next_attempt_at timestamptz not null default now(),
  last_error text,
  created_at timestamptz not null default now(),
  ended_at timestamptz,
  unique (event_id, url)
);
-- The earlier deliveries of the same process and URL still pending keep a later one waiting.
create index workflow_callback_deliveries_order on workflow_callback_deliveries (process_id, url, event_id)
  where status = 'pending';
create index workflow_callback_deliveries_due on workflow_callback_deliveries (next_attempt_at)
  where status = 'pending';
create index workflow_callback_deliveries_dead on workflow_callback_deliveries (tenant_id, app_id, id)
  where status = 'dead';

-- Every post of a delivery: when, how long, and what came of it.
create table workflow_callback_attempts (
  id bigint generated always as identity primary key,
  delivery_id bigint not null references workflow_callback_deliveries (id) on delete cascade,
  -- which round (0 until the first replay) and which post of it
  replay integer not null,
  attempt integer not null,
  started_at timestamptz not null,
  duration_ms integer not null,
  -- the receiver's HTTP status, when it answered
  http_status integer,
  error text
);
create index workflow_callback_attempts_delivery on workflow_callback_attempts (delivery_id, id);
