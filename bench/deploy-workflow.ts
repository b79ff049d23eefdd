/** Deploys a version of a workflow through the admin API; answers the app's and the version's ids. */
export async function deployWorkflow(
  url: string,
  adminToken: string,
  path: { domain: string; code: string },
  body: unknown,
): Promise<{ app: string; version: string }> {
  const deployed = await fetch(`${url}/admin/workflows/${path.domain}/${path.code}/versions`, {
    method: "PUT",
    headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (deployed.status !== 200)
    throw new Error(`deploy answered ${deployed.status}: ${await deployed.text()}`);
  return (await deployed.json()) as { app: string; version: string };
}
