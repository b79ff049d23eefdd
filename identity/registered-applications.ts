import type { Queryable } from "../runtime/database.ts";
import { applicationById } from "./application-store.ts";

/** Whether an application of that id is registered, as other capabilities ask it (whose send a notification is). */
export async function isRegisteredApplication(sql: Queryable, id: string): Promise<boolean> {
  return (await applicationById(sql, id)) !== undefined;
}
