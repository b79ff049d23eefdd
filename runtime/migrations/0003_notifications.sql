-- Notifications as sent, and one delivery task per recipient per channel.

create table notifications (
  id uuid primary key,
  application_id text not null references applications (id),
  -- the campus account that sends (password-grant tokens); null for application sends
  sender_user_id uuid references users (id),
  tenant_id uuid references tenants (id),
  body jsonb not null,
  created_at timestamptz not null default now()
);

create table delivery_tasks (
  id uuid primary key default gen_random_uuid(),
  notification_id uuid not null references notifications (id) on delete cascade,
  -- the channel asked for; `channel` is the one actually used (app_sms may fall back to sms)
  requested_channel text not null,
  channel text not null,
  position integer not null,
  phone text,
  email text,
  account text,
  recipient jsonb,
  sending_status text not null default 'pending'
    check (sending_status in ('pending', 'sent', 'retrying', 'fail')),
  reading_status text not null default 'unknown' check (reading_status in ('read', 'unread', 'unknown')),
  sent_at timestamptz,
  read_at timestamptz,
  attempts integer not null default 0,
  -- a worker's lease on the task while it delivers, so a redelivered job never sends twice at once
  claimed_until timestamptz,
  -- why the last attempt failed, or why nothing was sent (mail service disabled, say)
  detail text,
  provider_message_id text,
  updated_at timestamptz not null default now()
);
create index delivery_tasks_notification on delivery_tasks (notification_id);
-- the sweeper's work list: tasks whose job may not have reached the broker
create index delivery_tasks_pending on delivery_tasks (updated_at) where sending_status = 'pending';
