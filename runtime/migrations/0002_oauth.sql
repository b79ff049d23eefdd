-- Campus accounts, the applications that act for them, and the authorization server's state.

create table users (
  id uuid primary key default gen_random_uuid(),
  tenant_id uuid not null references tenants (id),
  account text not null,
  name text not null,
  email text,
  phone text,
  -- scrypt, "scrypt$N$r$p$salt$hash"; null for accounts that cannot log in with a password
  password_hash text,
  mail_enabled boolean not null default false,
  disabled boolean not null default false,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (tenant_id, account)
);

create table applications (
  id text primary key,
  -- SHA-256 of the secret (secrets are 256 random bits); null for public clients
  secret_hash bytea,
  name text not null,
  type text not null check (type in ('global', 'enterprise', 'workflow')),
  tenant_id uuid references tenants (id),
  workflow_code text,
  redirect_uris text[] not null default '{}',
  scopes text[] not null default '{}',
  implicit_allowed boolean not null default false,
  disabled boolean not null default false,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  check ((type = 'global') = (tenant_id is null)),
  check ((type = 'workflow') = (workflow_code is not null))
);

-- EdDSA keys that sign access tokens; retired keys stay published until their tokens expire.
create table signing_keys (
  kid text primary key,
  private_jwk jsonb not null,
  public_jwk jsonb not null,
  created_at timestamptz not null default now(),
  retired_at timestamptz
);

create table refresh_tokens (
  id uuid primary key default gen_random_uuid(),
  token_hash bytea not null unique,
  -- every refresh token descending from one grant; reuse of a rotated token revokes the family
  family_id uuid not null,
  application_id text not null references applications (id) on delete cascade,
  user_id uuid references users (id) on delete cascade,
  tenant_id uuid references tenants (id),
  grant_type text not null,
  scopes text[] not null,
  expires_at timestamptz not null,
  rotated_at timestamptz,
  revoked_at timestamptz,
  created_at timestamptz not null default now()
);
create index refresh_tokens_family on refresh_tokens (family_id);

-- An authorization request between the login page, the consent page and the redirect.
create table authorization_requests (
  id text primary key,
  application_id text not null references applications (id) on delete cascade,
  response_type text not null,
  redirect_uri text not null,
  scopes text[] not null,
  state text,
  code_challenge text,
  user_id uuid references users (id) on delete cascade,
  expires_at timestamptz not null
);

create table authorization_codes (
  code_hash bytea primary key,
  application_id text not null references applications (id) on delete cascade,
  user_id uuid not null references users (id) on delete cascade,
  redirect_uri text not null,
  scopes text[] not null,
  code_challenge text,
  -- the refresh token family issued for this code, revoked if the code is presented again
  family_id uuid,
  expires_at timestamptz not null,
  used_at timestamptz
);

-- Failed password attempts per account and per client, for rate limits and lockouts.
create table login_failures (
  subject text primary key,
  failures integer not null,
  window_started_at timestamptz not null,
  locked_until timestamptz
);
