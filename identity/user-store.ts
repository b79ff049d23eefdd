import type { BootstrapUser } from "../contracts/bootstrap.ts";
import { ConfigError } from "../runtime/config.ts";
import type { Queryable } from "../runtime/database.ts";
import { hashPassword, passwordMatches } from "../runtime/secrets.ts";
import { tenantByDomain } from "./tenant-store.ts";

export interface User {
  id: string;
  tenantId: string;
  account: string;
  name: string;
  email: string | null;
  phone: string | null;
  mailEnabled: boolean;
  disabled: boolean;
}

interface UserWithPassword extends User {
  passwordHash: string | null;
}

/** Creates the account or brings it up to date; a given password is hashed anew only when it changed. */
export async function upsertUser(sql: Queryable, user: BootstrapUser): Promise<void> {
  const tenant = await tenantByDomain(sql, user.tenant);
  if (!tenant) throw new ConfigError(`user ${user.account}: no tenant with domain ${user.tenant}`);
  const existing = await userWithPassword(sql, tenant.id, user.account);
  const keepHash =
    user.password === undefined
      ? null
      : existing && (await passwordMatches(user.password, existing.passwordHash));
  const passwordHash =
    user.password === undefined
      ? null
      : keepHash
        ? existing!.passwordHash
        : await hashPassword(user.password);
  // An entry without `disabled` leaves an operator's (or the feed's) disabling alone.
  const disabled = user.disabled ?? null;
  await sql`
    insert into users (tenant_id, account, name, email, phone, password_hash, mail_enabled, disabled)
    values (${tenant.id}, ${user.account}, ${user.name}, ${user.email ?? null}, ${user.phone ?? null},
            ${passwordHash}, ${user.mailEnabled}, coalesce(${disabled}::boolean, false))
    on conflict (tenant_id, account) do update set
      name = excluded.name, email = excluded.email, phone = excluded.phone,
      password_hash = coalesce(excluded.password_hash, users.password_hash), mail_enabled = excluded.mail_enabled,
      disabled = coalesce(${disabled}::boolean, users.disabled), updated_at = now()
    where (users.name, users.email, users.phone, users.password_hash, users.mail_enabled, users.disabled)
      is distinct from (excluded.name, excluded.email, excluded.phone,
                        coalesce(excluded.password_hash, users.password_hash), excluded.mail_enabled,
                        coalesce(${disabled}::boolean, users.disabled))`;
}

const USER_COLUMNS = `id, tenant_id as "tenantId", account, name, email, phone,
  mail_enabled as "mailEnabled", disabled, password_hash as "passwordHash"`;

async function userWithPassword(
  sql: Queryable,
  tenantId: string,
  account: string,
): Promise<UserWithPassword | undefined> {
  const [row] = await sql<UserWithPassword[]>`
    select ${sql.unsafe(USER_COLUMNS)} from users where tenant_id = ${tenantId} and account = ${account}`;
  return row;
}

/**
 * The account whose password matches, or undefined: the same answer, and the same password work,
 * for an account of no tenant (`tenantId` undefined), an unknown account, a disabled one and a
 * wrong password.
 */
export async function authenticateUser(
  sql: Queryable,
  tenantId: string | undefined,
  account: string,
  password: string,
): Promise<User | undefined> {
  const user = tenantId === undefined ? undefined : await userWithPassword(sql, tenantId, account);
  const matches = await passwordMatches(password, user?.passwordHash ?? null);
  if (!user || !matches || user.disabled) return undefined;
  const { passwordHash: _hidden, ...rest } = user;
  return rest;
}

/** Disables or enables the account `account` of the tenant `domain`; its id, or undefined when there is none. */
export async function setUserDisabled(
  sql: Queryable,
  domain: string,
  account: string,
  disabled: boolean,
): Promise<string | undefined> {
  const [row] = await sql<{ id: string }[]>`
    update users set disabled = ${disabled}, updated_at = now()
    where account = ${account} and tenant_id = (select id from tenants where domain = ${domain})
    returning id`;
  return row?.id;
}

/**
 * The accounts disabled within the last `withinSeconds`: those whose tokens may not have expired.
 * An account disabled earlier holds none, as tokens are refused to it.
 */
export async function recentlyDisabledUserIds(sql: Queryable, withinSeconds: number): Promise<string[]> {
  const rows = await sql<{ id: string }[]>`
    select id from users where disabled and updated_at > now() - make_interval(secs => ${withinSeconds})`;
  return rows.map((row) => row.id);
}

/** The ids of at most `limit` tenants that have the account `account`. */
export async function tenantsWithAccount(sql: Queryable, account: string, limit: number): Promise<string[]> {
  const rows = await sql<{ tenantId: string }[]>`
    select tenant_id as "tenantId" from users where account = ${account} limit ${limit}`;
  return rows.map((row) => row.tenantId);
}

export async function userById(sql: Queryable, id: string): Promise<User | undefined> {
  const [row] = await sql<UserWithPassword[]>`select ${sql.unsafe(USER_COLUMNS)} from users where id = ${id}`;
  if (!row) return undefined;
  const { passwordHash: _hidden, ...rest } = row;
  return rest;
}

/** A user's profile with their tenant (spec 001's `profile` and `enterprise`). */
export interface UserProfile {
  id: string;
  name: string;
  account: string;
  email: string | null;
  phone: string | null;
  enterprise: {
    id: string;
    name: string;
    domain: string;
    style: string | null;
    logo: string | null;
    banner: string | null;
    copyright: string | null;
  };
}

/** An enabled user's profile, by id, within the tenant when one is given. */
export async function userProfile(
  sql: Queryable,
  userId: string,
  tenantId: string | undefined,
): Promise<UserProfile | undefined> {
  const [row] = await sql<UserProfile[]>`
    select u.id, u.name, u.account, u.email, u.phone,
           json_build_object('id', t.id, 'name', t.name, 'domain', t.domain, 'style', t.style,
                             'logo', t.logo, 'banner', t.banner, 'copyright', t.copyright) as enterprise
    from users u join tenants t on t.id = u.tenant_id
    where u.id = ${userId} and not u.disabled
      and (${tenantId ?? null}::uuid is null or u.tenant_id = ${tenantId ?? null}::uuid)`;
  return row;
}

/** An account as operators read it: never its password's hash, only whether it has one. */
export interface UserRecord {
  id: string;
  account: string;
  name: string;
  email: string | null;
  phone: string | null;
  title: string | null;
  mailEnabled: boolean;
  disabled: boolean;
  hasPassword: boolean;
  /** Who wrote it: `FEED` for the enterprise feed's accounts, `PUSH` for the others. */
  source: string;
  createdAt: Date;
  updatedAt: Date;
}

/** `LIKE` text matching what starts with `prefix`, its wildcards taken literally. */
const startsWith = (prefix: string) => `${prefix.replace(/[\\%_]/g, "\\$&")}%`;

/**
 * At most `limit` accounts of a tenant by account, after the account `after`: those whose account
 * starts with `keyword` (case-insensitively) when given, and without the feed's when `notFromFeed`.
 */
export async function userPage(
  sql: Queryable,
  tenantId: string,
  filter: { after: string | null; limit: number; keyword?: string | undefined; notFromFeed?: boolean },
): Promise<UserRecord[]> {
  const { after, limit, keyword, notFromFeed } = filter;
  return sql<UserRecord[]>`
    select id, account, name, email, phone, title, mail_enabled as "mailEnabled", disabled,
           password_hash is not null as "hasPassword", source,
           created_at as "createdAt", updated_at as "updatedAt"
    from users
    where tenant_id = ${tenantId}
      ${keyword ? sql`and lower(account) like ${startsWith(keyword.toLowerCase())}` : sql``}
      ${notFromFeed ? sql`and source <> 'FEED'` : sql``}
      ${after === null ? sql`` : sql`and account > ${after}`}
    order by account limit ${limit}`;
}
