import assert from "node:assert/strict";
import { AuthorizationPages } from "../support/authorization-pages.ts";
import { startTestPlatform, type TestPlatform, testModes, withBootstrap } from "../support/platform.ts";
import { after, before, describe, it } from "../support/skippable-suites.ts";
import { waitFor } from "../support/wait.ts";

const NORTH_SECRET = "north-portal-secret-0123456789abcdefghijk";
const SOUTH_SECRET = "south-portal-secret-0123456789abcdefghijk";
const REDIRECT = "https://portal.example.edu/callback";
const ALICE = "alice's long passphrase";
const NORTH_CAROL = "north carol's passphrase";
const SOUTH_CAROL = "south carol's passphrase";

const bootstrap = {
  tenants: [
    { domain: "north.edu", name: "North University" },
    { domain: "south.edu", name: "South University" },
  ],
  applications: [
    {
      id: "north-portal",
      secret: NORTH_SECRET,
      name: "North portal",
      type: "enterprise",
      tenant: "north.edu",
      redirectUris: [REDIRECT],
      scopes: ["send_notification", "profile"],
    },
    {
      id: "south-portal",
      secret: SOUTH_SECRET,
      name: "South portal",
      type: "enterprise",
      tenant: "south.edu",
      redirectUris: [REDIRECT],
      scopes: ["send_notification", "profile"],
    },
  ],
  users: [
    { tenant: "north.edu", account: "alice", name: "Alice North", password: ALICE },
    { tenant: "north.edu", account: "carol", name: "Carol North", password: NORTH_CAROL },
    { tenant: "south.edu", account: "carol", name: "Carol South", password: SOUTH_CAROL },
  ],
};

type Portal = "north-portal" | "south-portal";
const SECRETS: Record<Portal, string> = { "north-portal": NORTH_SECRET, "south-portal": SOUTH_SECRET };

/** What a sign-in came to: tokens or the consent page, or refused with the reason shown. */
interface SignIn {
  ok: boolean;
  reason: string;
}

/** Seconds the refusal says to wait, from `… try again in N s`. */
function retrySeconds(reason: string): number {
  const match = /try again in (\d+) s/.exec(reason);
  assert.ok(match, `a lockout, not: ${reason}`);
  return Number(match[1]);
}

/** Drives sign-ins by the password grant and by the login page, each from a given client address. */
function signIns(url: () => string) {
  async function byPasswordGrant(
    portal: Portal,
    username: string,
    password: string,
    address: string,
  ): Promise<SignIn> {
    const response = await fetch(`${url()}/oauth2/token`, {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        authorization: `Basic ${Buffer.from(`${portal}:${SECRETS[portal]}`).toString("base64")}`,
        "x-forwarded-for": address,
      },
      body: new URLSearchParams({ grant_type: "password", username, password, scope: "send_notification" }),
    });
    const body = (await response.json()) as {
      access_token?: string;
      error?: string;
      error_description?: string;
    };
    if (response.status === 200) {
      assert.ok(body.access_token);
      return { ok: true, reason: "" };
    }
    assert.equal(response.status, 400);
    assert.equal(body.error, "invalid_grant");
    return { ok: false, reason: String(body.error_description) };
  }

  async function byLoginPage(
    portal: Portal,
    username: string,
    password: string,
    address: string,
  ): Promise<SignIn> {
    const pages = await AuthorizationPages.open(url(), {
      response_type: "code",
      client_id: portal,
      redirect_uri: REDIRECT,
      scope: "profile",
    });
    const response = await pages.signIn(username, password, { headers: { "x-forwarded-for": address } });
    assert.equal(response.status, 200);
    const html = await response.text();
    if (html.includes('value="allow"')) return { ok: true, reason: "" };
    const reason = /role="alert">([^<]*)</.exec(html)?.[1];
    assert.ok(reason, "the login page again, saying why");
    return { ok: false, reason };
  }

  return { byPasswordGrant, byLoginPage };
}

for (const mode of await testModes()) {
  describe(`password sign-in limits per account and per address (${mode.name})`, { skip: mode.skip }, () => {
    let platform: TestPlatform;
    let cleanup: () => Promise<void>;
    const { byPasswordGrant, byLoginPage } = signIns(() => platform.url);

    before(async () => {
      const prepared = await mode.prepare();
      cleanup = prepared.cleanup;
      platform = await startTestPlatform({
        ...(await withBootstrap(prepared.env, bootstrap)),
        // Each test signs in from addresses of its own, named in X-Forwarded-For.
        TRUST_PROXY_HOPS: "1",
        LOGIN_MAX_FAILURES: "3",
        LOGIN_ADDRESS_MAX_FAILURES: "8",
      });
    });

    after(async () => {
      await platform?.stop();
      await cleanup?.();
    });

    it("lets a real account's correct password in after five failures of made-up accounts, on the page and by the grant", async () => {
      for (let i = 1; i <= 5; i++) {
        const page = await byLoginPage("north-portal", `ghost-${i}`, "a guess", "10.0.1.1");
        assert.deepEqual(page, { ok: false, reason: "Wrong account or password." });
        const grant = await byPasswordGrant("north-portal", "nobody", "a guess", "10.0.1.2");
        assert.equal(grant.ok, false);
      }
      // A made-up account is locked out like a real one: the answer tells nobody which accounts exist.
      assert.match(
        (await byPasswordGrant("north-portal", "nobody", "a guess", "10.0.1.2")).reason,
        /for this account/,
      );

      for (const address of ["10.0.1.3", "10.0.1.1", "10.0.1.2"]) {
        assert.deepEqual(await byLoginPage("north-portal", "alice", ALICE, address), {
          ok: true,
          reason: "",
        });
        assert.deepEqual(await byPasswordGrant("north-portal", "alice", ALICE, address), {
          ok: true,
          reason: "",
        });
      }
    });

    it("keeps one tenant's lockout of an account from the same name in another, and its sign-in from clearing it", async () => {
      for (let i = 0; i < 2; i++)
        assert.equal((await byPasswordGrant("south-portal", "carol", "a guess", "10.0.2.1")).ok, false);
      for (let i = 0; i < 3; i++)
        assert.equal((await byPasswordGrant("north-portal", "carol", "a guess", "10.0.2.2")).ok, false);

      const northLocked = await byPasswordGrant("north-portal", "carol", NORTH_CAROL, "10.0.2.3");
      assert.equal(northLocked.ok, false);
      assert.match(northLocked.reason, /^too many failed attempts for this account; try again in \d+ s$/);
      assert.deepEqual(await byPasswordGrant("south-portal", "carol", SOUTH_CAROL, "10.0.2.3"), {
        ok: true,
        reason: "",
      });
      assert.deepEqual(await byLoginPage("south-portal", "carol", SOUTH_CAROL, "10.0.2.4"), {
        ok: true,
        reason: "",
      });

      // South's sign-ins cleared South's count, not North's lockout.
      const stillLocked = await byLoginPage("north-portal", "carol", NORTH_CAROL, "10.0.2.4");
      assert.equal(stillLocked.ok, false);
      assert.match(stillLocked.reason, /too many failed attempts for this account/);
      assert.equal((await byPasswordGrant("south-portal", "carol", "a guess", "10.0.2.1")).ok, false);
      assert.deepEqual(await byPasswordGrant("south-portal", "carol", SOUTH_CAROL, "10.0.2.1"), {
        ok: true,
        reason: "",
      });
    });

    it("locks an address out after its own threshold of failures on any accounts, and only that address", async () => {
      const guessing = "10.0.3.1";
      for (let i = 1; i <= 7; i++) {
        const portal = i % 2 === 0 ? "north-portal" : "south-portal";
        const failed = i % 3 === 0 ? byLoginPage : byPasswordGrant;
        assert.equal((await failed(portal, `stranger-${i}`, "a guess", guessing)).ok, false, `failure ${i}`);
      }
      // Under the threshold, a correct password gets in, and does not clear the address's count.
      assert.deepEqual(await byPasswordGrant("north-portal", "alice", ALICE, guessing), {
        ok: true,
        reason: "",
      });
      assert.equal((await byPasswordGrant("north-portal", "stranger-8", "a guess", guessing)).ok, false);

      const grant = await byPasswordGrant("north-portal", "alice", ALICE, guessing);
      assert.equal(grant.ok, false);
      assert.match(grant.reason, /^too many failed attempts from this address; try again in \d+ s$/);
      assert.ok(retrySeconds(grant.reason) <= 30, "the first lockout, LOGIN_FIRST_LOCKOUT_SECONDS' default");
      const page = await byLoginPage("south-portal", "carol", SOUTH_CAROL, guessing);
      assert.match(page.reason, /too many failed attempts from this address/);

      assert.deepEqual(await byPasswordGrant("north-portal", "alice", ALICE, "10.0.3.2"), {
        ok: true,
        reason: "",
      });
      assert.deepEqual(await byLoginPage("south-portal", "carol", SOUTH_CAROL, "10.0.3.2"), {
        ok: true,
        reason: "",
      });
    });
  });

  describe(`growing lockouts of an account (${mode.name})`, { skip: mode.skip }, () => {
    let platform: TestPlatform;
    let cleanup: () => Promise<void>;
    const { byPasswordGrant } = signIns(() => platform.url);

    before(async () => {
      const prepared = await mode.prepare();
      cleanup = prepared.cleanup;
      platform = await startTestPlatform({
        ...(await withBootstrap(prepared.env, bootstrap)),
        LOGIN_MAX_FAILURES: "2",
        LOGIN_FIRST_LOCKOUT_SECONDS: "2",
        LOGIN_LOCKOUT_SECONDS: "5",
      });
    });

    after(async () => {
      await platform?.stop();
      await cleanup?.();
    });

    it("locks out twice as long at each failure past the limit, up to LOGIN_LOCKOUT_SECONDS, the right password too", async () => {
      const guess = () => byPasswordGrant("north-portal", "carol", "a guess", "127.0.0.1");
      const right = () => byPasswordGrant("north-portal", "carol", NORTH_CAROL, "127.0.0.1");
      /** Fails once more as soon as the lockout in force ends (attempts while locked out count for nothing). */
      const failAfterLockout = () =>
        waitFor(
          async () => (await guess()).reason === "wrong username or password",
          15_000,
          "the lockout's end",
        );

      assert.equal((await guess()).reason, "wrong username or password");
      assert.equal((await guess()).reason, "wrong username or password");
      // Seconds are rounded up from what is left of the lockout when the answer is given.
      for (const expected of [2, 4, 5]) {
        const refused = await right();
        assert.equal(refused.ok, false, `the right password during a lockout of ${expected} s`);
        const seconds = retrySeconds(refused.reason);
        assert.ok(seconds >= expected - 1 && seconds <= expected, `${seconds} s, not about ${expected} s`);
        if (expected !== 5) await failAfterLockout();
      }
    });
  });
}
