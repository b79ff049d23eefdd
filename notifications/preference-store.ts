import { ErrorCode, localizedError } from "../contracts/errors.ts";
import { type Queryable, type Sql, transaction } from "../runtime/database.ts";

/** Spec 001's built-in preference sets; FavoriteTasks holds serial numbers, the others strings. */
export const BUILT_IN_PREFERENCES = ["FavoriteApps", "FavoriteTasks", "FavoriteTags"] as const;
const INTEGER_PREFERENCES: ReadonlySet<string> = new Set(["FavoriteTasks"]);
/** Profile fields a free preference key would shadow in the answer. */
const RESERVED_KEYS: ReadonlySet<string> = new Set([
  "id",
  "name",
  "account",
  "email",
  "phone",
  "enterprise",
  "TenantApps",
]);

export const MAX_PREFERENCE_KEYS = 64;
export const MAX_PREFERENCE_VALUES = 1000;

export type PreferenceValue = string | number;
export type Preferences = Record<string, PreferenceValue[]>;

export function checkPreferenceKey(key: string): void {
  if (RESERVED_KEYS.has(key)) throw localizedError(ErrorCode.InvalidArgument, "reservedPreference", { key });
}

function elementOf(key: string, value: string): PreferenceValue {
  if (!INTEGER_PREFERENCES.has(key)) return value;
  if (!/^-?\d{1,15}$/.test(value))
    throw localizedError(ErrorCode.InvalidArgument, "integerPreference", { key, value });
  return Number(value);
}

/** The built-in sets (empty when never set) and, for a free key, that key's set too. */
export function preferenceView(stored: Preferences, key: string): Preferences {
  const view = keyedByUser();
  for (const name of [...BUILT_IN_PREFERENCES, key])
    view[name] = Object.hasOwn(stored, name) ? stored[name]! : [];
  return view;
}

/**
 * Preference keys are the user's own text (`valueOf`, `constructor`): they live in an object without
 * a prototype, so no key reads or replaces anything inherited.
 */
function keyedByUser(from: Preferences = {}): Preferences {
  return Object.assign(Object.create(null) as Preferences, from);
}

export async function preferencesOf(sql: Queryable, userId: string): Promise<Preferences> {
  const [row] = await sql<{ preferences: Preferences }[]>`select preferences from users where id = ${userId}`;
  return row?.preferences ?? {};
}

/** 1.4 adds `value` to the set `key`, 1.5 removes it; either answers the sets after the change. */
export async function changePreference(
  sql: Sql,
  userId: string,
  key: string,
  value: string,
  change: "add" | "remove",
): Promise<Preferences> {
  checkPreferenceKey(key);
  const element = elementOf(key, value);
  return transaction(sql, async (tx) => {
    const [row] = await tx<{ preferences: Preferences }[]>`
      select preferences from users where id = ${userId} for update`;
    const preferences = keyedByUser(row?.preferences);
    const current = preferences[key] ?? [];
    const present = current.includes(element);
    if (change === "add" && !present) {
      if (!Object.hasOwn(preferences, key) && Object.keys(preferences).length >= MAX_PREFERENCE_KEYS)
        throw localizedError(ErrorCode.Conflict, "tooManyPreferences", { max: MAX_PREFERENCE_KEYS });
      if (current.length >= MAX_PREFERENCE_VALUES)
        throw localizedError(ErrorCode.Conflict, "preferenceFull", { key, max: MAX_PREFERENCE_VALUES });
      preferences[key] = [...current, element];
    } else if (change === "remove" && present) {
      const rest = current.filter((item) => item !== element);
      if (rest.length > 0) preferences[key] = rest;
      else delete preferences[key];
    } else {
      return preferences;
    }
    await tx`update users set preferences = ${tx.json(preferences)}, updated_at = now() where id = ${userId}`;
    return preferences;
  });
}
