-- Delegations and items belong to one data mode, as processes do: a delegation or a pickup code made
-- through the test-data API (/apis/v2d) never reaches formal work (/apis/v2), and the other way round.
-- Rows made before this were made through either API; they stay with formal data.
alter table workflow_entrustments add column test boolean not null default false;
drop index workflow_entrustments_pair;
create unique index workflow_entrustments_pair
  on workflow_entrustments (entruster_id, entrustee_id, test, coalesce(app_id, '00000000-0000-0000-0000-000000000000'));

alter table workflow_things add column test boolean not null default false;
alter table workflow_things drop constraint workflow_things_tenant_id_code_key;
alter table workflow_things add constraint workflow_things_code unique (tenant_id, test, code);
