-- The access tokens each refresh-token family issued (a family begins with a password sign-in or an
-- authorization code), by jti: a replayed refresh token or code revokes them with the family. A row
-- is useless, and removed, once its token has expired.
create table family_access_tokens (
  jti uuid primary key,
  family_id uuid not null,
  application_id text not null,
  expires_at timestamptz not null
);
create index family_access_tokens_family on family_access_tokens (family_id);
create index family_access_tokens_expiry on family_access_tokens (expires_at);
