-- A version's messenger callbacks (its definition's `events`), kept beside the definition: the
-- relay looks them up for every batch of events, and reading them out of the definition would
-- decompress the whole definition once per process of the batch. Null when it names none.
alter table workflow_versions
  add column callback_events jsonb generated always as (
    case when jsonb_typeof(definition -> 'events') = 'array' and definition -> 'events' <> '[]'::jsonb
         then definition -> 'events' end) stored;
