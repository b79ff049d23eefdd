import type { Queryable } from "../runtime/database.ts";
import { userById } from "./user-store.ts";

/** A user's account by id, as other capabilities read it (whose send it is); undefined for no such user. */
export async function accountOfUser(sql: Queryable, userId: string): Promise<string | undefined> {
  return (await userById(sql, userId))?.account;
}
