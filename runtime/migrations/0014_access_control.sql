-- Per application: the grant types it may use (null: every grant its approved scopes allow) and the
-- lifetime of its access tokens in seconds (null: ACCESS_TOKEN_TTL_SECONDS).
alter table applications
  add column grants text[],
  add column access_token_ttl_seconds integer check (access_token_ttl_seconds >= 1);

-- Access tokens revoked before they expire (RFC 7009), by their jti. Gateways hold the live ones in
-- memory; a row is useless, and removed, once the token would have expired anyway.
create table revoked_access_tokens (
  jti uuid primary key,
  application_id text not null,
  expires_at timestamptz not null
);
create index revoked_access_tokens_expiry on revoked_access_tokens (expires_at);

-- Gateways refuse the tokens of accounts disabled within the longest token lifetime: older ones
-- hold no token that has not expired.
create index users_disabled_since on users (updated_at) where disabled;

-- A global application's bare account is looked up across tenants.
create index users_account on users (account);
