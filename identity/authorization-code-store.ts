import type { Queryable } from "../runtime/database.ts";

/** An authorization code as its exchange reads it. */
export interface AuthorizationCodeUse {
  applicationId: string;
  userId: string;
  redirectUri: string;
  scopes: string[];
  codeChallenge: string | null;
  /** The refresh-token family its first exchange issued. */
  familyId: string | null;
  /** It was used before this exchange. */
  used: boolean;
  expired: boolean;
}

/** Records an authorization code by its hash, usable for `ttlSeconds`. */
export async function insertAuthorizationCode(
  sql: Queryable,
  code: {
    hash: Buffer;
    applicationId: string;
    userId: string;
    redirectUri: string;
    scopes: string[];
    codeChallenge: string | null;
  },
  ttlSeconds: number,
): Promise<void> {
  await sql`
    insert into authorization_codes (code_hash, application_id, user_id, redirect_uri, scopes, code_challenge, expires_at)
    values (${code.hash}, ${code.applicationId}, ${code.userId}, ${code.redirectUri}, ${code.scopes},
            ${code.codeChallenge}, now() + make_interval(secs => ${ttlSeconds}))`;
}

/** Marks the code used (its first use is kept) and returns it, saying whether it was used before. */
export async function useAuthorizationCode(
  sql: Queryable,
  hash: Buffer,
): Promise<AuthorizationCodeUse | undefined> {
  const [code] = await sql<AuthorizationCodeUse[]>`
    update authorization_codes set used_at = coalesce(used_at, now())
    where code_hash = ${hash}
    returning application_id as "applicationId", user_id as "userId", redirect_uri as "redirectUri", scopes,
              code_challenge as "codeChallenge", family_id as "familyId",
              used_at < now() as used, expires_at <= now() as expired`;
  return code;
}

/** Records the refresh-token family a code's exchange issued. */
export async function setAuthorizationCodeFamily(
  sql: Queryable,
  hash: Buffer,
  familyId: string,
): Promise<void> {
  await sql`update authorization_codes set family_id = ${familyId} where code_hash = ${hash}`;
}
