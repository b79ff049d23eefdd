-- Who may do what (spec 001's access): one row per grant of a permission (R, W or X) on an object of
-- a scope, to a user or to a position (`dept:post`, `*` for any department or post). A position's
-- grant is read through the occupancies of the moment, so a directory change takes effect at the
-- next request; no per-user copy is kept. Grants carry the data mode like the workflow's runtime
-- tables: what 7.3 writes through /apis/v2d never counts for /apis/v2, and the operator's lists
-- (bootstrap file, admin API, console) are written for both.
--
-- `object` by scope: `position` the position `dept:post`; `workflow` the app's id; `enterprise`
-- the tenant's id. `source` says who wrote a row: `bootstrap` the operator's lists (each list
-- replaces only its own rows), `access` the 7.3 operation, whose user is `granted_by`.
create table access_grants (
  id uuid primary key default gen_random_uuid(),
  tenant_id uuid not null references tenants (id) on delete cascade,
  test boolean not null,
  scope text not null check (scope in ('position', 'engine', 'enterprise', 'workflow', 'instance', 'code')),
  object text not null,
  user_id uuid references users (id) on delete cascade,
  dept text,
  post text,
  permission text not null check (permission in ('R', 'W', 'X')),
  source text not null,
  granted_by uuid references users (id) on delete set null,
  created_at timestamptz not null default now(),
  check ((user_id is null) = (dept is not null) and (dept is null) = (post is null))
);
-- One grant per object, permission and grantee; also how a start or an app list finds an app's starters.
create unique index access_grants_object on access_grants
  (tenant_id, test, scope, object, permission, coalesce(user_id::text, dept || ':' || post));
create index access_grants_user on access_grants (user_id, test) where user_id is not null;
create index access_grants_position on access_grants (tenant_id, test, scope) where user_id is null;

-- The app permissions become workflow grants with the same meaning: administrators W, guests R.
insert into access_grants (tenant_id, test, scope, object, user_id, permission, source, created_at)
select p.tenant_id, mode.test, 'workflow', p.app_id::text, p.user_id,
       case p.role when 'admin' then 'W' else 'R' end, p.source, p.created_at
from workflow_app_permissions p cross join (values (false), (true)) as mode (test);

drop table workflow_app_permissions;
