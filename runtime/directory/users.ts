import type { BootstrapUser } from "../../contracts/bootstrap.ts";
import { ConfigError } from "../config.ts";
import type { Queryable } from "../database.ts";
import { hashPassword, passwordMatches } from "./secrets.ts";
import { tenantByDomain } from "./tenants.ts";

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
  await sql`
    insert into users (tenant_id, account, name, email, phone, password_hash, mail_enabled)
    values (${tenant.id}, ${user.account}, ${user.name}, ${user.email ?? null}, ${user.phone ?? null},
            ${passwordHash}, ${user.mailEnabled})
    on conflict (tenant_id, account) do update set
      name = excluded.name, email = excluded.email, phone = excluded.phone,
      password_hash = excluded.password_hash, mail_enabled = excluded.mail_enabled, updated_at = now()
    where (users.name, users.email, users.phone, users.password_hash, users.mail_enabled)
      is distinct from (excluded.name, excluded.email, excluded.phone, excluded.password_hash, excluded.mail_enabled)`;
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
 * The account whose password matches, or undefined: the same answer, and about the same time, for
 * an unknown account, a disabled one and a wrong password.
 */
export async function authenticateUser(
  sql: Queryable,
  tenantId: string,
  account: string,
  password: string,
): Promise<User | undefined> {
  const user = await userWithPassword(sql, tenantId, account);
  const matches = await passwordMatches(password, user?.passwordHash ?? null);
  if (!user || !matches || user.disabled) return undefined;
  const { passwordHash: _hidden, ...rest } = user;
  return rest;
}

export async function userById(sql: Queryable, id: string): Promise<User | undefined> {
  const [row] = await sql<UserWithPassword[]>`select ${sql.unsafe(USER_COLUMNS)} from users where id = ${id}`;
  if (!row) return undefined;
  const { passwordHash: _hidden, ...rest } = row;
  return rest;
}
