import type { Database } from "../runtime/database.ts";
import { rotateApplicationSecret } from "./application-secret-store.ts";
import { type Application, applicationById, setApplicationAccess } from "./application-store.ts";

/** What the operators change on an application: written, then announced to every gateway. */
type ApplicationChanges = Pick<Database, "sql" | "changes">;

/** An application as the console shows it: never its secret or the secret's hash, only whether there is one. */
export interface ApplicationDetails {
  id: string;
  name: string;
  type: Application["type"];
  scopes: string[];
  grants: string[] | null;
  redirectUris: string[];
  disabled: boolean;
  hasSecret: boolean;
  accessTokenTtlSeconds: number | null;
}

export async function applicationDetails(
  db: Pick<Database, "sql">,
  id: string,
): Promise<ApplicationDetails | undefined> {
  const found = await applicationById(db.sql, id);
  if (!found) return undefined;
  return {
    id: found.id,
    name: found.name,
    type: found.type,
    scopes: found.scopes,
    grants: found.grants,
    redirectUris: found.redirectUris,
    disabled: found.disabled,
    hasSecret: found.secretHash !== null,
    accessTokenTtlSeconds: found.accessTokenTtlSeconds,
  };
}

/**
 * Gives an application a new random secret, shown once; gateways drop the old one from their cache
 * at once. Undefined when there is no application with that id.
 */
export async function newApplicationSecret(db: ApplicationChanges, id: string): Promise<string | undefined> {
  const secret = await rotateApplicationSecret(db.sql, id);
  if (secret) await db.changes.announce({ kind: "application", id });
  return secret;
}

/**
 * Sets the scopes the operators approved for an application (each once) and the grants it may use
 * (none listed: every grant its scopes allow); what was set, or undefined when there is no
 * application with that id.
 */
export async function approveApplicationAccess(
  db: ApplicationChanges,
  id: string,
  asked: { scopes: readonly string[]; grants: readonly string[] },
): Promise<{ scopes: string[]; grants: string[] | null } | undefined> {
  const access = {
    scopes: [...new Set(asked.scopes)],
    grants: asked.grants.length === 0 ? null : [...new Set(asked.grants)],
  };
  if (!(await setApplicationAccess(db.sql, id, access))) return undefined;
  await db.changes.announce({ kind: "application", id });
  return access;
}
