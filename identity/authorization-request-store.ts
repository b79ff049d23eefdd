import type { Queryable } from "../runtime/database.ts";

/** An authorization request waiting for the user's login and consent. */
export interface PendingRequest {
  id: string;
  applicationId: string;
  responseType: "code" | "token";
  redirectUri: string;
  scopes: string[];
  state: string | null;
  codeChallenge: string | null;
  /** Who logged in, once someone has. */
  userId: string | null;
}

/** Records a request, kept for `ttlSeconds`. */
export async function insertAuthorizationRequest(
  sql: Queryable,
  request: Omit<PendingRequest, "userId">,
  ttlSeconds: number,
): Promise<void> {
  await sql`
    insert into authorization_requests (id, application_id, response_type, redirect_uri, scopes, state, code_challenge, expires_at)
    values (${request.id}, ${request.applicationId}, ${request.responseType}, ${request.redirectUri}, ${request.scopes},
            ${request.state}, ${request.codeChallenge}, now() + make_interval(secs => ${ttlSeconds}))`;
}

/** A request not expired yet, by id. */
export async function pendingAuthorizationRequest(
  sql: Queryable,
  id: string,
): Promise<PendingRequest | undefined> {
  const [row] = await sql<PendingRequest[]>`
    select id, application_id as "applicationId", response_type as "responseType", redirect_uri as "redirectUri",
           scopes, state, code_challenge as "codeChallenge", user_id as "userId"
    from authorization_requests where id = ${id} and expires_at > now()`;
  return row;
}

/** Records who logged in for the request. */
export async function setAuthorizationRequestUser(sql: Queryable, id: string, userId: string): Promise<void> {
  await sql`update authorization_requests set user_id = ${userId} where id = ${id}`;
}

export async function deleteAuthorizationRequest(sql: Queryable, id: string): Promise<void> {
  await sql`delete from authorization_requests where id = ${id}`;
}
