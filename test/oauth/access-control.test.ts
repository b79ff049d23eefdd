import assert from "node:assert/strict";
import { startTestPlatform, type TestPlatform, testModes, withBootstrap } from "../support/platform.ts";
import { distributedSetup, PlatformProcess } from "../support/platform-processes.ts";
import { realServicesSkip } from "../support/services.ts";
import { after, before, describe, it } from "../support/skippable-suites.ts";
import { waitFor } from "../support/wait.ts";

const ADMIN_TOKEN = "admin-token-0123456789abcdefghijklmnopqrstuv";
const SYS_SECRET = "sys-app-secret-0123456789abcdefghijklmnopqr";
const USER_SECRET = "user-app-secret-0123456789abcdefghijklmnopq";
const NARROW_SECRET = "narrow-app-secret-0123456789abcdefghijklmno";
const PASSWORD = "correct horse battery staple";

const bootstrap = {
  tenants: [
    { domain: "north.edu", name: "North University" },
    { domain: "south.edu", name: "South University" },
  ],
  applications: [
    {
      id: "sys-app",
      secret: SYS_SECRET,
      name: "Directory reader",
      scopes: ["sys_profile", "introspect", "send_mail"],
    },
    { id: "user-app", secret: USER_SECRET, name: "Campus portal", scopes: ["send_mail"] },
    {
      id: "narrow-app",
      secret: NARROW_SECRET,
      name: "Kiosk",
      scopes: ["send_mail", "sys_profile"],
      grants: ["client_credentials", "password"],
      accessTokenTtlSeconds: 2,
    },
  ],
  users: [
    { tenant: "north.edu", account: "alice", name: "Alice", password: PASSWORD },
    { tenant: "north.edu", account: "sam", name: "Sam North", password: PASSWORD },
    { tenant: "south.edu", account: "sam", name: "Sam South", password: PASSWORD },
  ],
};

interface TokenReply {
  status: number;
  body: { access_token?: string; refresh_token?: string; expires_in?: number; error?: string } & Record<
    string,
    unknown
  >;
}

function basic(id: string, secret: string): string {
  return `Basic ${Buffer.from(`${id}:${secret}`).toString("base64")}`;
}

async function tokenFrom(
  baseUrl: string,
  client: [string, string],
  form: Record<string, string>,
): Promise<TokenReply> {
  const response = await fetch(`${baseUrl}/oauth2/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", authorization: basic(...client) },
    body: new URLSearchParams(form),
  });
  return { status: response.status, body: (await response.json()) as TokenReply["body"] };
}

/**
 * Whether a token gets past the token check of a protected call (the password grant's scopes read
 * no profile): deleting a file that does not exist answers 404 to an accepted token
 * and 401 to a refused one.
 */
async function protectedCallStatus(baseUrl: string, accessToken: string): Promise<number> {
  const response = await fetch(`${baseUrl}/file/0000000000000000000000`, {
    method: "DELETE",
    headers: { authorization: `Bearer ${accessToken}` },
  });
  await response.arrayBuffer();
  return response.status;
}
const ACCEPTED = 404;

/** What the protected call answers a refused token: the challenge and the envelope's error text. */
async function refusalOf(
  baseUrl: string,
  accessToken: string,
): Promise<{ challenge: string; error: string }> {
  const response = await fetch(`${baseUrl}/file/0000000000000000000000`, {
    method: "DELETE",
    headers: { authorization: `Bearer ${accessToken}` },
  });
  assert.equal(response.status, 401);
  const body = (await response.json()) as { errno: number; ecode: string; error: string };
  assert.equal(body.errno, 10007);
  assert.equal(body.ecode, "UNAUTHENTICATED");
  return { challenge: response.headers.get("www-authenticate") ?? "", error: body.error };
}

/** The refusal of a token for `reason`: RFC 6750's challenge, and the same words as the error text. */
function refusedFor(reason: string): { challenge: string; error: string } {
  return { challenge: `Bearer error="invalid_token", error_description="${reason}"`, error: reason };
}

async function admin(baseUrl: string, path: string): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${baseUrl}/admin${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  return { status: response.status, body: await response.json() };
}

async function revoke(baseUrl: string, client: [string, string], token: string): Promise<number> {
  const response = await fetch(`${baseUrl}/oauth2/revoke`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", authorization: basic(...client) },
    body: new URLSearchParams({ token }),
  });
  await response.arrayBuffer();
  return response.status;
}

const SYS: [string, string] = ["sys-app", SYS_SECRET];
const USER: [string, string] = ["user-app", USER_SECRET];
const NARROW: [string, string] = ["narrow-app", NARROW_SECRET];

for (const mode of await testModes()) {
  describe(`stopping applications, accounts and tokens (${mode.name})`, { skip: mode.skip }, () => {
    let platform: TestPlatform;
    let cleanup: () => Promise<void>;
    let url: string;

    async function passwordToken(client: [string, string], username: string): Promise<TokenReply> {
      return tokenFrom(url, client, {
        grant_type: "password",
        username,
        password: PASSWORD,
        scope: "send_mail",
      });
    }

    before(async () => {
      const prepared = await mode.prepare();
      cleanup = prepared.cleanup;
      platform = await startTestPlatform({ ...(await withBootstrap(prepared.env, bootstrap)), ADMIN_TOKEN });
      url = platform.url;
    });

    after(async () => {
      await platform?.stop();
      await cleanup?.();
    });

    it("disables an application: no new token, its access and refresh tokens refused; enabling restores them", async () => {
      const sys = await tokenFrom(url, SYS, { grant_type: "client_credentials", scope: "sys_profile" });
      const user = await passwordToken(USER, "alice@north.edu");
      assert.equal(await protectedCallStatus(url, sys.body.access_token!), ACCEPTED);
      assert.equal(await protectedCallStatus(url, user.body.access_token!), ACCEPTED);

      assert.deepEqual(await admin(url, "/applications/sys-app/disable"), {
        status: 200,
        body: { id: "sys-app", disabled: true },
      });
      assert.equal((await admin(url, "/applications/user-app/disable")).status, 200);
      const disabled = refusedFor("the application is disabled");
      assert.deepEqual(await refusalOf(url, sys.body.access_token!), disabled);
      assert.deepEqual(await refusalOf(url, user.body.access_token!), disabled);
      // With the right secret the client learns why; with a wrong one, no more than of an unknown client.
      const refused = await tokenFrom(url, SYS, { grant_type: "client_credentials" });
      assert.equal(refused.status, 401);
      assert.deepEqual(refused.body, {
        error: "invalid_client",
        error_description: "the application is disabled",
      });
      const unauthenticated = { error: "invalid_client", error_description: "client authentication failed" };
      const wrongSecret = await tokenFrom(url, ["sys-app", "not-the-secret"], {
        grant_type: "client_credentials",
      });
      assert.equal(wrongSecret.status, 401);
      assert.deepEqual(wrongSecret.body, unauthenticated);
      const unknown = await tokenFrom(url, ["no-such-app", SYS_SECRET], { grant_type: "client_credentials" });
      assert.deepEqual(unknown.body, unauthenticated);
      const refresh = await tokenFrom(url, USER, {
        grant_type: "refresh_token",
        refresh_token: user.body.refresh_token!,
      });
      assert.deepEqual(refresh.body, {
        error: "invalid_client",
        error_description: "the application is disabled",
      });
      // Introspection tells nothing more than RFC 7662's inactive.
      await admin(url, "/applications/sys-app/enable");
      const introspection = await fetch(`${url}/oauth2/introspect`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", authorization: basic(...SYS) },
        body: new URLSearchParams({ token: user.body.access_token! }),
      });
      assert.deepEqual(await introspection.json(), { active: false });

      await admin(url, "/applications/sys-app/enable");
      await admin(url, "/applications/user-app/enable");
      assert.equal(await protectedCallStatus(url, sys.body.access_token!), ACCEPTED);
      assert.equal(await protectedCallStatus(url, user.body.access_token!), ACCEPTED);
      assert.equal((await tokenFrom(url, SYS, { grant_type: "client_credentials" })).status, 200);
      assert.equal((await admin(url, "/applications/no-such-app/disable")).status, 404);
    });

    it("disables an account: its sign-in, tokens and refresh answer invalid_grant or 401 until enabled", async () => {
      const user = await passwordToken(USER, "alice@north.edu");
      assert.equal(await protectedCallStatus(url, user.body.access_token!), ACCEPTED);
      const disabled = await admin(url, "/users/north.edu/alice/disable");
      assert.equal(disabled.status, 200);
      assert.equal((disabled.body as { disabled: boolean }).disabled, true);

      assert.deepEqual(await refusalOf(url, user.body.access_token!), refusedFor("the account is disabled"));
      const signIn = await passwordToken(USER, "alice@north.edu");
      assert.equal(signIn.body.error, "invalid_grant");
      const refresh = await tokenFrom(url, USER, {
        grant_type: "refresh_token",
        refresh_token: user.body.refresh_token!,
      });
      assert.equal(refresh.body.error, "invalid_grant");

      await admin(url, "/users/north.edu/alice/enable");
      assert.equal(await protectedCallStatus(url, user.body.access_token!), ACCEPTED);
      assert.equal((await passwordToken(USER, "alice@north.edu")).status, 200);
      assert.equal((await admin(url, "/users/north.edu/nobody/disable")).status, 404);
    });

    it("revokes an access token (RFC 7009) for its own client only; introspection calls it inactive", async () => {
      const mine = await passwordToken(USER, "alice@north.edu");
      const theirs = await tokenFrom(url, SYS, { grant_type: "client_credentials", scope: "sys_profile" });
      // Another client's token is answered 200 and left alone.
      assert.equal(await revoke(url, USER, theirs.body.access_token!), 200);
      assert.equal(await protectedCallStatus(url, theirs.body.access_token!), ACCEPTED);

      assert.equal(await revoke(url, USER, mine.body.access_token!), 200);
      assert.deepEqual(
        await refusalOf(url, mine.body.access_token!),
        refusedFor("the token has been revoked"),
      );
      const introspection = await fetch(`${url}/oauth2/introspect`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", authorization: basic(...SYS) },
        body: new URLSearchParams({ token: mine.body.access_token! }),
      });
      assert.deepEqual(await introspection.json(), { active: false });
      // The refresh token of the same grant still works: revoking an access token is that token only.
      const refreshed = await tokenFrom(url, USER, {
        grant_type: "refresh_token",
        refresh_token: mine.body.refresh_token!,
      });
      assert.equal(refreshed.status, 200);
      assert.equal(await protectedCallStatus(url, refreshed.body.access_token!), ACCEPTED);
    });

    it("keeps an application to its grants and its own token lifetime", async () => {
      const sys = await tokenFrom(url, NARROW, { grant_type: "client_credentials", scope: "sys_profile" });
      assert.equal(sys.status, 200);
      assert.equal(sys.body.expires_in, 2);
      const user = await passwordToken(NARROW, "alice@north.edu");
      assert.equal(user.status, 200);
      assert.equal(user.body.refresh_token, undefined, "no refresh token without the refresh_token grant");
      assert.equal(await protectedCallStatus(url, user.body.access_token!), ACCEPTED);
      await waitFor(
        async () => (await protectedCallStatus(url, user.body.access_token!)) === 401,
        5000,
        "expiry",
      );

      const withoutPassword = await passwordToken(SYS, "alice@north.edu");
      assert.equal(withoutPassword.status, 200, "an application without grants may use them all");
      const bootstrapped = await fetch(`${url}/admin/bootstrap`, {
        method: "PUT",
        headers: { "content-type": "application/json", authorization: `Bearer ${ADMIN_TOKEN}` },
        body: JSON.stringify({
          applications: [{ ...bootstrap.applications[0], grants: ["client_credentials"] }],
        }),
      });
      assert.equal(bootstrapped.status, 200);
      const refused = await passwordToken(SYS, "alice@north.edu");
      assert.equal(refused.status, 400);
      assert.equal(refused.body.error, "unauthorized_client");
    });

    it("signs a bare account in when one tenant has it, and asks for account@domain when several do", async () => {
      const unique = await passwordToken(USER, "alice");
      assert.equal(unique.status, 200);
      const ambiguous = await passwordToken(USER, "sam");
      assert.equal(ambiguous.status, 400);
      assert.equal(ambiguous.body.error, "invalid_grant");
      assert.match(String(ambiguous.body.error_description), /sam@<the tenant's domain>/);
      assert.equal((await passwordToken(USER, "sam@south.edu")).status, 200);
    });
  });
}

const distributedSkip = await realServicesSkip();

describe("a change made through one gateway, honoured by another", { skip: distributedSkip }, () => {
  let setup: Awaited<ReturnType<typeof distributedSetup>>;
  let first: PlatformProcess;
  let second: PlatformProcess;

  before(async () => {
    setup = await distributedSetup(bootstrap, { ADMIN_TOKEN, PUBLIC_URL: "http://platform.test" });
    [first, second] = await Promise.all([
      PlatformProcess.gateway(setup.env),
      PlatformProcess.gateway(setup.env),
    ]);
  });

  after(async () => {
    await Promise.all([first?.stop(), second?.stop()]);
    await setup?.cleanup();
  });

  it("refuses, within 5 s, a token revoked, an application and an account disabled elsewhere", async () => {
    const revoked = await tokenFrom(first.url, USER, {
      grant_type: "password",
      username: "alice@north.edu",
      password: PASSWORD,
    });
    assert.equal(await protectedCallStatus(second.url, revoked.body.access_token!), ACCEPTED);
    assert.equal(await revoke(first.url, USER, revoked.body.access_token!), 200);
    await waitFor(
      async () => (await protectedCallStatus(second.url, revoked.body.access_token!)) === 401,
      5000,
      "the revocation on the other gateway",
    );

    const held = await tokenFrom(second.url, USER, {
      grant_type: "password",
      username: "alice@north.edu",
      password: PASSWORD,
    });
    assert.equal(await protectedCallStatus(second.url, held.body.access_token!), ACCEPTED);
    assert.equal((await admin(first.url, "/users/north.edu/alice/disable")).status, 200);
    await waitFor(
      async () => (await protectedCallStatus(second.url, held.body.access_token!)) === 401,
      5000,
      "the account's disabling on the other gateway",
    );
    assert.equal((await admin(first.url, "/users/north.edu/alice/enable")).status, 200);
    await waitFor(
      async () => (await protectedCallStatus(second.url, held.body.access_token!)) === ACCEPTED,
      5000,
      "the account's enabling on the other gateway",
    );

    assert.equal((await admin(first.url, "/applications/user-app/disable")).status, 200);
    await waitFor(
      async () => (await protectedCallStatus(second.url, held.body.access_token!)) === 401,
      5000,
      "the application's disabling on the other gateway",
    );
    const refused = await tokenFrom(second.url, USER, { grant_type: "client_credentials" });
    assert.equal(refused.body.error, "invalid_client");
  });
});
