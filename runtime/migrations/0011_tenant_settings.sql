-- A tenant's settings, as its bootstrap entry gives them: `{"workflow": {"reminder": {...}}}` (the
-- channel and text of spec 001 4.9's reminders). Kept as one document, since each setting is read
-- whole by the one feature it configures.
alter table tenants add column settings jsonb not null default '{}'::jsonb;
