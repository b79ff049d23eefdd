-- Serial numbers (`entry`) count per tenant, so the numbers a tenant sees say nothing of how many
-- processes the others start. Each tenant has a sequence of its own, made with the tenant and
-- dropped with it: concurrent starts of one tenant take numbers without waiting on each other, as
-- they did from the platform's one sequence. A tenant's numbers go on from its highest so far.

create function workflow_entry_sequence(tenant uuid) returns text language sql immutable parallel safe as $$
  select 'workflow_entry_' || replace(tenant::text, '-', '')
$$;

create function workflow_entry_sequence_create() returns trigger language plpgsql as $$
begin
  execute format('create sequence if not exists %I as bigint', workflow_entry_sequence(new.id));
  return null;
end
$$;

create function workflow_entry_sequence_drop() returns trigger language plpgsql as $$
begin
  execute format('drop sequence if exists %I', workflow_entry_sequence(old.id));
  return null;
end
$$;

create trigger tenants_workflow_entry_sequence_create after insert on tenants
  for each row execute function workflow_entry_sequence_create();
create trigger tenants_workflow_entry_sequence_drop after delete on tenants
  for each row execute function workflow_entry_sequence_drop();

do $$
declare
  tenant record;
begin
  for tenant in select t.id, (select max(p.entry) from workflow_processes p where p.tenant_id = t.id) as last
                from tenants t loop
    execute format('create sequence if not exists %I as bigint', workflow_entry_sequence(tenant.id));
    if tenant.last is not null then
      perform setval(workflow_entry_sequence(tenant.id)::regclass, tenant.last);
    end if;
  end loop;
end
$$;

-- A process's number is always the sequence's: none is given by the statement that inserts it.
create function workflow_process_entry() returns trigger language plpgsql as $$
begin
  new.entry := nextval(workflow_entry_sequence(new.tenant_id)::regclass);
  return new;
end
$$;

alter table workflow_processes alter column entry drop identity;
alter table workflow_processes drop constraint workflow_processes_entry_key;
alter table workflow_processes add constraint workflow_processes_tenant_entry_key unique (tenant_id, entry);

create trigger workflow_processes_entry before insert on workflow_processes
  for each row execute function workflow_process_entry();
