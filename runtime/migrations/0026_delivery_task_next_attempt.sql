-- When a retrying delivery task is tried next, so its status can say so beside the last error.
alter table delivery_tasks add column next_attempt_at timestamptz;
