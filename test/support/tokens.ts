import { AuthorizationPages } from "./authorization-pages.ts";

/** An access token from the platform's token endpoint, for a client and the given grant fields. */
export async function issueToken(
  baseUrl: string,
  client: { id: string; secret: string },
  fields: Record<string, string>,
): Promise<string> {
  const response = await fetch(`${baseUrl}/oauth2/token`, {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      authorization: `Basic ${Buffer.from(`${client.id}:${client.secret}`).toString("base64")}`,
    },
    body: new URLSearchParams(fields),
  });
  const json = (await response.json()) as { access_token?: string };
  if (!json.access_token) throw new Error(`no token for ${client.id}: ${JSON.stringify(json)}`);
  return json.access_token;
}

/**
 * A user token by the authorization-code flow, as a web application gets one: the login and consent
 * pages walked over HTTP, the code exchanged with the client's secret.
 */
export async function authorizationCodeToken(
  baseUrl: string,
  client: { id: string; secret: string; redirectUri: string },
  user: { account: string; password: string },
  scope: string,
): Promise<string> {
  const pages = await AuthorizationPages.open(baseUrl, {
    response_type: "code",
    client_id: client.id,
    redirect_uri: client.redirectUri,
    scope,
    state: "walk",
  });
  await pages.signIn(user.account, user.password);
  const location = await pages.decide("allow");
  const code = location.searchParams.get("code");
  if (!code) throw new Error(`no code for ${user.account}: ${location}`);
  return issueToken(baseUrl, client, {
    grant_type: "authorization_code",
    code,
    redirect_uri: client.redirectUri,
  });
}
