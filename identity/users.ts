import { ErrorCode, localizedError } from "../contracts/errors.ts";
import type { Queryable } from "../runtime/database.ts";
import { type UserProfile, userById, userProfile } from "./user-store.ts";

export type { UserProfile };

/**
 * Spec 001's profile of an enabled user, by id, with their tenant; confined to the tenant when one
 * is given (a sys token's). No such user is the API's not-found.
 */
export async function profileOf(
  sql: Queryable,
  userId: string,
  tenantId: string | undefined,
): Promise<UserProfile> {
  const row = await userProfile(sql, userId, tenantId);
  if (!row) throw localizedError(ErrorCode.NotFound, "noEntity", { type: { term: "user" }, code: userId });
  return row;
}

/** A user's account by id, as other capabilities read it (whose send it is); undefined for no such user. */
export async function accountOfUser(sql: Queryable, userId: string): Promise<string | undefined> {
  return (await userById(sql, userId))?.account;
}
