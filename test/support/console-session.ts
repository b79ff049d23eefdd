import assert from "node:assert/strict";

/** Signs in to the console with the operator token as its form does; answers the session's cookie. */
export async function consoleCookie(baseUrl: string, adminToken: string): Promise<string> {
  const signedIn = await fetch(`${baseUrl}/console/sign-in`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ token: adminToken }),
    redirect: "manual",
  });
  await signedIn.body?.cancel();
  assert.equal(signedIn.status, 303);
  return signedIn.headers.get("set-cookie")!.split(";")[0]!;
}
