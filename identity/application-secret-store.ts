import type { Queryable } from "../runtime/database.ts";
import { hashSecret, newSecret } from "../runtime/secrets.ts";

/** Gives an application a new random secret, shown once; the old one stops working at once. */
export async function rotateApplicationSecret(
  sql: Queryable,
  applicationId: string,
): Promise<string | undefined> {
  const secret = newSecret();
  const rows = await sql`
    update applications set secret_hash = ${hashSecret(secret)}, updated_at = now() where id = ${applicationId} returning id`;
  return rows.length > 0 ? secret : undefined;
}
