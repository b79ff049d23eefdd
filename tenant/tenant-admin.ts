import { ErrorCode, PlatformError } from "../contracts/errors.ts";
import { tenantByDomain, tenantSettings } from "../identity/tenants.ts";
import type { Queryable } from "../runtime/database.ts";
import {
  type MembershipFields,
  type MembershipRow,
  membershipsOf,
  putMembership,
  removeMembership,
} from "./memberships.ts";
import { putSetting, SETTING_NAMES, SETTINGS, type SettingName } from "./settings.ts";
import { putTag, removeTag, type TagFields, type TagRow, tagsOf } from "./tags.ts";

/**
 * What operators do to a tenant's tags, memberships and settings (the admin API and the console),
 * the tenant named by its domain.
 */

async function tenantIdOf(sql: Queryable, domain: string): Promise<string> {
  const tenant = await tenantByDomain(sql, domain);
  if (!tenant) throw new PlatformError(ErrorCode.NotFound, `no tenant ${domain}`);
  return tenant.id;
}

function absent(what: string, domain: string): PlatformError {
  return new PlatformError(ErrorCode.NotFound, `tenant ${domain} has no ${what}`);
}

/** Everything an operator reads of a tenant's own data, each list whole (each is bounded). */
export async function tenantData(sql: Queryable, domain: string) {
  const tenantId = await tenantIdOf(sql, domain);
  const whole = { start: 0, limit: 100_000 };
  const [{ tags }, { memberships }, settings] = await Promise.all([
    tagsOf(sql, tenantId, whole),
    membershipsOf(sql, tenantId, whole),
    tenantSettings(sql, tenantId),
  ]);
  const values = settings as Record<string, Record<string, unknown> | undefined>;
  const setting = Object.fromEntries(
    SETTING_NAMES.map((name) => {
      const [group, key] = SETTINGS[name].path;
      return [name, values[group]?.[key] ?? null];
    }),
  );
  return { tags, memberships, settings: setting as Record<SettingName, unknown> };
}

export async function setTag(sql: Queryable, domain: string, tag: TagFields): Promise<TagRow> {
  return putTag(sql, await tenantIdOf(sql, domain), tag);
}

export async function withdrawTag(sql: Queryable, domain: string, name: string): Promise<TagRow> {
  const removed = await removeTag(sql, await tenantIdOf(sql, domain), name);
  if (!removed) throw absent(`tag ${name}`, domain);
  return removed;
}

export async function setMembership(
  sql: Queryable,
  domain: string,
  membership: MembershipFields,
): Promise<MembershipRow> {
  return putMembership(sql, await tenantIdOf(sql, domain), membership);
}

export async function withdrawMembership(
  sql: Queryable,
  domain: string,
  provider: string,
): Promise<MembershipRow> {
  const removed = await removeMembership(sql, await tenantIdOf(sql, domain), provider);
  if (!removed) throw absent(`membership ${provider}`, domain);
  return removed;
}

/** Sets a setting, its value checked by the caller against `SETTINGS[name].schema`; null removes it. */
export async function setSetting(
  sql: Queryable,
  domain: string,
  name: SettingName,
  value: unknown,
): Promise<void> {
  await putSetting(sql, await tenantIdOf(sql, domain), name, value);
}
