import { profileOf, type UserProfile } from "../identity/users.ts";
import {
  changePreference,
  checkPreferenceKey,
  type Preferences,
  preferencesOf,
  preferenceView,
} from "../notifications/preferences.ts";
import type { Sql } from "../runtime/database.ts";
import { tenantAppIds } from "./app-store.ts";

/** Spec 001 1.3-1.5's answer: the profile with the tenant's own apps and the preference sets. */
export type ProfileWithPreferences = UserProfile & { TenantApps: string[] } & Record<string, unknown>;

/** Whose profile: the token's user, or (sys form) a user of the token's tenant. */
export interface ProfileSubject {
  userId: string;
  tenantId: string | undefined;
}

function answer(
  profile: UserProfile,
  preferences: Preferences,
  key: string,
  tenantApps: string[],
): ProfileWithPreferences {
  return { ...profile, TenantApps: tenantApps, ...preferenceView(preferences, key) };
}

/** 1.3: the preference set `key` with the built-in ones; the three reads go out together. */
export async function profilePreference(
  sql: Sql,
  subject: ProfileSubject,
  key: string,
): Promise<ProfileWithPreferences> {
  checkPreferenceKey(key);
  const [profile, preferences, tenantApps] = await Promise.all([
    profileOf(sql, subject.userId, subject.tenantId),
    preferencesOf(sql, subject.userId),
    tenantAppIds(sql, subject.userId),
  ]);
  return answer(profile, preferences, key, tenantApps);
}

/** 1.4 adds `value` to the set `key`, 1.5 removes it, for a user the subject's tenant has. */
export async function changeProfilePreference(
  sql: Sql,
  subject: ProfileSubject,
  change: { key: string; value: string; change: "add" | "remove" },
): Promise<ProfileWithPreferences> {
  const profile = await profileOf(sql, subject.userId, subject.tenantId);
  const preferences = await changePreference(sql, subject.userId, change.key, change.value, change.change);
  const tenantApps = await tenantAppIds(sql, subject.userId);
  return answer(profile, preferences, change.key, tenantApps);
}
