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
