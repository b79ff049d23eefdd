import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { CallbackReceiver } from "../support/callback-receiver.ts";
import { hooksWorkflow, startHooksProcess } from "../support/callback-relay.ts";
import { CampusAppStandIn } from "../support/campus-app-stand-in.ts";
import { sealPng } from "../support/pdf-fixtures.ts";
import { startTestPlatform, type TestPlatform, tempDir, withBootstrap } from "../support/platform.ts";
import { after, before, describe, it } from "../support/skippable-suites.ts";
import { CHROMIUM, CHROMIUM_PATH, missingSystemPackages } from "../support/system-requirements.ts";
import { issueToken } from "../support/tokens.ts";
import { waitFor } from "../support/wait.ts";

const ADMIN_TOKEN = "console-operator-token-0123456789abcdef";
const CLIENT = { id: "console-client", secret: "console-client-secret-0123456789abcdef" };
const SENDER = { id: "console-sender", secret: "console-sender-secret-0123456789abcdef" };
const FORM = { "content-type": "application/x-www-form-urlencoded" };

/** A token request by client credentials: the status and the error, if any. */
async function clientCredentials(url: string, scope: string): Promise<{ status: number; error?: string }> {
  const response = await fetch(`${url}/oauth2/token`, {
    method: "POST",
    headers: {
      ...FORM,
      authorization: `Basic ${Buffer.from(`${CLIENT.id}:${CLIENT.secret}`).toString("base64")}`,
    },
    body: new URLSearchParams({ grant_type: "client_credentials", scope }),
  });
  const body = (await response.json()) as { error?: string };
  return { status: response.status, ...(body.error ? { error: body.error } : {}) };
}

describe("the operator console, off without ADMIN_TOKEN", () => {
  let platform: TestPlatform;
  let removeDir: () => Promise<void>;
  before(async () => {
    const dir = await tempDir();
    removeDir = dir.remove;
    platform = await startTestPlatform({ DATA_DIR: dir.path });
  });
  after(async () => {
    await platform?.stop();
    await removeDir?.();
  });

  it("answers 404 on every console path, as /admin does", async () => {
    for (const path of ["/console", "/console/sign-in", "/console/style.css"]) {
      const response = await fetch(`${platform.url}${path}`, { redirect: "manual" });
      assert.equal(response.status, 404, path);
      await response.body?.cancel();
    }
    const posted = await fetch(`${platform.url}/console/sign-in`, {
      method: "POST",
      headers: FORM,
      body: new URLSearchParams({ token: "anything" }),
    });
    assert.equal(posted.status, 404);
    await posted.body?.cancel();
  });
});

describe("the operator console in a browser", {
  skip: missingSystemPackages(CHROMIUM),
}, () => {
  let platform: TestPlatform;
  let campusApp: CampusAppStandIn;
  let hooks: CallbackReceiver;
  let removeDir: () => Promise<void>;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;

  const at = (path: string) => `${platform.url}${path}`;
  const alert = async () => (await page.textContent("[role=alert]"))?.trim();
  const status = async () => (await page.textContent("[role=status]"))?.trim();
  async function signIn(target: Page = page) {
    await target.goto(at("/console"));
    await target.fill("#token", ADMIN_TOKEN);
    await Promise.all([target.waitForURL(at("/console")), target.click("button[type=submit]")]);
  }
  /** The session cookie as the browser holds it. */
  async function sessionCookie() {
    return (await context.cookies(at("/console"))).find((cookie) => cookie.name === "console_session");
  }
  /** The CSRF token of the page shown. */
  const csrfOf = async (target: Page = page) => (await target.getAttribute("input[name=csrf]", "value"))!;

  before(async () => {
    campusApp = await CampusAppStandIn.start("campus-token");
    hooks = await CallbackReceiver.start(() => 503);
    const dir = await tempDir();
    removeDir = dir.remove;
    platform = await startTestPlatform({
      ...(await withBootstrap(
        { DATA_DIR: dir.path },
        {
          tenants: [{ domain: "example.edu", name: "Example University" }],
          applications: [
            { ...CLIENT, name: "Console client", scopes: ["basic"] },
            { ...SENDER, name: "Library", scopes: ["send_app_notification", "notifications"] },
          ],
          users: [
            { tenant: "example.edu", account: "dana", name: "Dana Scully" },
            { tenant: "example.edu", account: "fox", name: "Fox Mulder" },
          ],
          channels: [
            {
              name: "app",
              plugin: "app",
              config: { baseUrl: campusApp.url, token: "campus-token" },
              permittedApplications: [SENDER.id],
            },
          ],
          workflows: [hooksWorkflow("example.edu", `${hooks.url}/hooks`)],
        },
      )),
      ADMIN_TOKEN,
      NOTIFY_RETRY_DELAYS_MS: "50",
      CALLBACK_ALLOWED_HOSTS: `127.0.0.1:${hooks.port}`,
      CALLBACK_RETRY_DELAYS_MS: "20",
      CALLBACK_POLL_INTERVAL_MS: "20",
    });
    browser = await chromium.launch({
      executablePath: CHROMIUM_PATH,
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    });
    context = await browser.newContext();
    page = await context.newPage();
  });
  after(async () => {
    await browser?.close();
    await hooks?.close();
    await platform?.stop();
    await campusApp?.close();
    await removeDir?.();
  });

  it("refuses a wrong token, signs in with the right one, and keeps the session in a strict cookie", async () => {
    await page.goto(at("/console/tenants"));
    assert.equal(page.url(), at("/console/sign-in"));
    await page.fill("#token", "not the operator token at all, but long enough");
    await page.click("button[type=submit]");
    assert.equal(await alert(), "Wrong operator token.");
    assert.equal(await sessionCookie(), undefined);

    await signIn();
    assert.equal(await page.textContent("h1"), "Dashboard");
    // The dashboard names every section the navigation has.
    const places = await page.$$eval("ul.places a", (links) => links.map((link) => link.textContent));
    const sections = await page.$$eval("nav a", (links) => links.map((link) => link.textContent));
    assert.deepEqual(places, sections.slice(1));
    assert.ok(places.includes("Workflows"));
    const cookie = await sessionCookie();
    assert.ok(cookie);
    assert.equal(cookie.httpOnly, true);
    assert.equal(cookie.sameSite, "Strict");
    assert.equal(cookie.path, "/console");
    assert.equal(cookie.secure, false, "PUBLIC_URL is http here");
    assert.ok(
      !cookie.value.includes(ADMIN_TOKEN) && cookie.value.length >= 40,
      "an opaque id, not the token",
    );

    const response = await page.goto(at("/console/tenants"));
    const headers = response!.headers();
    assert.equal(headers["cache-control"], "no-store");
    assert.equal(headers["x-frame-options"], "DENY");
    assert.match(headers["content-security-policy"] ?? "", /default-src 'none'/);
    assert.doesNotMatch(headers["content-security-policy"] ?? "", /script-src/);
    assert.match((await page.textContent("tbody")) ?? "", /example\.edu/);
  });

  it("approves a scope for an application, which then gets tokens with it", async () => {
    assert.deepEqual(await clientCredentials(platform.url, "essential"), {
      status: 400,
      error: "invalid_scope",
    });
    await page.goto(at(`/console/applications/${CLIENT.id}`));
    await page.check("input[name=scope][value=essential]");
    await page.click("text=Save scopes and grants");
    assert.match((await status()) ?? "", /may now ask for basic, essential/);

    await page.goto(at("/console/applications"));
    const row = page.locator("tr", { has: page.locator(`a[href="/console/applications/${CLIENT.id}"]`) });
    assert.match((await row.textContent()) ?? "", /basic\s*essential/);
    await waitFor(
      async () => (await clientCredentials(platform.url, "essential")).status === 200,
      5000,
      "the approved scope granted",
    );
  });

  it("disables an application, whose token requests are then refused, and enables it again", async () => {
    await page.goto(at(`/console/applications/${CLIENT.id}`));
    await page.click("button:has-text('Disable')");
    assert.match((await status()) ?? "", /is disabled/);
    await waitFor(
      async () => (await clientCredentials(platform.url, "basic")).error === "invalid_client",
      5000,
      "the disabled application refused",
    );
    assert.deepEqual(await clientCredentials(platform.url, "basic"), {
      status: 401,
      error: "invalid_client",
    });

    await page.click("button:has-text('Enable')");
    assert.match((await status()) ?? "", /is enabled/);
    await waitFor(
      async () => (await clientCredentials(platform.url, "basic")).status === 200,
      5000,
      "enabled",
    );
  });

  it("gives an application a new secret, shown once", async () => {
    await page.goto(at(`/console/applications/${SENDER.id}`));
    await page.click("button:has-text('Give it a new secret')");
    const secret = (await page.textContent("#secret"))!.trim();
    assert.match(secret, /^[\w-]{43}$/);
    await issueToken(
      platform.url,
      { id: SENDER.id, secret },
      { grant_type: "client_credentials", scope: "notifications" },
    );
    SENDER.secret = secret;
  });

  it("lists and disables a tenant's accounts found by the start of their account", async () => {
    await page.goto(at("/console/users?tenant=example.edu&keyword=da"));
    const rows = await page.locator("tbody tr").allTextContents();
    assert.equal(rows.length, 1);
    assert.match(rows[0]!, /dana/);
    await page.click("button:has-text('Disable')");
    assert.match((await status()) ?? "", /dana is disabled/);
    assert.match((await page.locator("tbody tr").textContent()) ?? "", /disabled/);
    await page.click("button:has-text('Enable')");
    assert.match((await status()) ?? "", /dana is enabled/);
  });

  it("uploads a seal, shows its image and withdraws it", async () => {
    await page.goto(at("/console/seals"));
    await page.fill("#seal-code", "console-seal");
    await page.fill("#seal-name", "Console seal");
    await page.fill("#seal-tenant", "example.edu");
    await page.setInputFiles("#seal-image", { name: "seal.png", mimeType: "image/png", buffer: sealPng(48) });
    await page.click("button:has-text('Upload')");
    assert.match((await status()) ?? "", /console-seal of example\.edu is uploaded/);
    const image = page.locator("img[alt='seal console-seal']");
    assert.equal(
      await image.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth),
      48,
    );

    await page.fill("#seal-code", "not-a-png");
    await page.fill("#seal-name", "Broken");
    await page.setInputFiles("#seal-image", {
      name: "seal.png",
      mimeType: "image/png",
      buffer: Buffer.from("GIF89a"),
    });
    await page.click("button:has-text('Upload')");
    assert.match((await alert()) ?? "", /not-a-png: image is not a PNG/);

    const row = page.locator("tr", { has: page.locator("img[alt='seal console-seal']") });
    await row.locator("button:has-text('Withdraw')").click();
    assert.match((await status()) ?? "", /is withdrawn/);
    assert.equal(await page.locator("img[alt='seal console-seal']").count(), 0);
  });

  it("replays a dead letter, after which its task is sent", async () => {
    const token = await issueToken(platform.url, SENDER, {
      grant_type: "client_credentials",
      scope: "send_app_notification",
    });
    const flaky = `flaky-${randomUUID().slice(0, 8)}`;
    const down = { status: 503, body: { errno: 50300, error: "push service down" } };
    campusApp.scripted.set(flaky, [down, down]);
    const sent = await fetch(at(`/v1/notification?access_token=${token}`), {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ channels: ["app"], accounts: [flaky], name: "Library", content: "Due" }),
    });
    const { entities } = (await sent.json()) as { entities: { id: string }[] };
    const id = entities[0]!.id;

    await waitFor(
      async () => {
        await page.goto(at("/console/queues/notify.app"));
        return (await page.locator("tbody tr").count()) === 1;
      },
      10_000,
      "the job dead-lettered",
    );
    const letter = page.locator("tbody tr");
    assert.match((await letter.textContent()) ?? "", /push service down/);
    await page.goto(at(`/console/notifications?id=${id}`));
    assert.equal(await page.textContent("td.status"), "fail");

    await page.goto(at("/console/queues/notify.app"));
    await page.locator("tbody tr button:has-text('Replay')").click();
    assert.match((await status()) ?? "", /1 dead letter of notify\.app went back/);
    await waitFor(
      async () => {
        await page.goto(at(`/console/notifications?id=${id}`));
        return (await page.textContent("td.status")) === "sent";
      },
      10_000,
      "the replayed task sent",
    );
    assert.equal(campusApp.received.filter((pushed) => pushed.account === flaky).length, 1);
  });

  it("lists a dead messenger callback and replays it, after which its receiver has it", async () => {
    await startHooksProcess(platform.running.platform.db.sql, "dana", "hooks");
    await waitFor(
      async () => {
        await page.goto(at("/console/callbacks"));
        return (await page.locator("tbody tr").count()) === 1;
      },
      10_000,
      "the callback dead",
    );
    assert.match(
      (await page.locator("tbody tr").textContent()) ?? "",
      /example\.edu · hooks.*started.*answered 503/,
    );
    hooks.reply = () => 200;
    await page.locator("tbody tr button:has-text('Replay')").click();
    assert.match((await status()) ?? "", /^Callback \d+ is due again\.$/);
    await waitFor(() => hooks.accepted().length === 1, 10_000, "the replayed callback received");
    await page.goto(at("/console/callbacks"));
    assert.equal(await page.locator("tbody tr").count(), 0);
    const refused = await page.request.post(at("/console/callbacks/not-an-id/replay"), {
      form: { csrf: await csrfOf() },
    });
    assert.equal(refused.status(), 400);
  });

  it("edits a channel as JSON, keeping a masked credential, and sends a test message through it", async () => {
    await page.goto(at("/console/channels"));
    assert.match((await page.textContent("tbody")) ?? "", /"token": "\*\*\*\*\*\*\*\*"/);
    assert.doesNotMatch((await page.content()) ?? "", /campus-token/);
    await page.click("a:has-text('edit')");
    const entry = JSON.parse((await page.inputValue("#entry")) ?? "{}");
    await page.fill("#entry", "{ not json");
    await page.click("button:has-text('Apply')");
    assert.match((await alert()) ?? "", /not JSON/);
    await page.fill("#entry", JSON.stringify({ ...entry, maxInFlight: 0 }));
    await page.click("button:has-text('Apply')");
    assert.match((await alert()) ?? "", /maxInFlight/);
    await page.fill("#entry", JSON.stringify({ ...entry, config: { ...entry.config, baseUrl: 7 } }));
    await page.click("button:has-text('Apply')");
    assert.match((await alert()) ?? "", /channel app: config\.baseUrl/);
    await page.fill("#entry", JSON.stringify({ ...entry, maxInFlight: 8 }, null, 2));
    await page.click("button:has-text('Apply')");
    assert.match((await status()) ?? "", /Channel app is applied/);
    assert.match((await page.textContent("tbody")) ?? "", /unlimited, 8/);

    // The masked token stayed the stored one: the campus app takes the test message.
    await page.selectOption("#test-channel", "app");
    await page.fill("#test-recipient", "dana");
    await page.click("button:has-text('Send')");
    assert.match((await status()) ?? "", /Test message sent on app as console-sender/);
    await waitFor(
      async () => {
        await page.reload();
        return (await page.textContent("td.status")) === "sent";
      },
      10_000,
      "the test message sent",
    );
    assert.ok(campusApp.received.some((pushed) => pushed.account === "dana"));
  });

  it("shows a feed's absence, lists queues, and answers bad input with a page, never a failure", async () => {
    await page.goto(at("/console/feeds?tenant=example.edu"));
    assert.match((await page.textContent("main")) ?? "", /example\.edu has no enterprise feed/);
    await page.goto(at("/console/queues"));
    assert.match((await page.textContent("#queues tbody")) ?? "", /notify\.app/);
    // The relay's subscribers, each with how far it is behind.
    assert.match((await page.textContent("#outbox tbody")) ?? "", /workflow\.push\s*0/);

    const cookie = `console_session=${(await sessionCookie())!.value}`;
    const cases: [string, number][] = [
      ["/console/no/such/page", 404],
      ["/console/applications/no-such-app", 404],
      ["/console/tenants?after=not-a-cursor", 400],
      ["/console/users?tenant=no.such.edu", 404],
      ["/console/notifications?id=42", 400],
      ["/console/queues/Not%20A%20Queue", 400],
      ["/console/queues/no.such.queue", 404],
      ["/console/seals/image?code=nope", 404],
      ["/console/channels/NOPE", 400],
    ];
    for (const [path, expected] of cases) {
      const response = await fetch(at(path), { headers: { cookie }, redirect: "manual" });
      assert.equal(response.status, expected, path);
      assert.match(response.headers.get("content-type") ?? "", /text\/html/, path);
      assert.equal(response.headers.get("x-frame-options"), "DENY", path);
      await response.body?.cancel();
    }
    const put = await fetch(at("/console/tenants"), { method: "PUT", headers: { cookie } });
    assert.equal(put.status, 405);
    await put.body?.cancel();
  });

  it("refuses a POST without the session's CSRF token", async () => {
    await page.goto(at("/console/applications"));
    const csrf = await csrfOf();
    const cookie = `console_session=${(await sessionCookie())!.value}`;
    const post = (body: Record<string, string>, headers: Record<string, string> = FORM) =>
      fetch(at(`/console/applications/${CLIENT.id}/disable`), {
        method: "POST",
        headers: { ...headers, cookie },
        body: new URLSearchParams(body),
        redirect: "manual",
      });
    for (const response of [
      await post({}),
      await post({ csrf: "a-token-of-another-session" }),
      await post({ csrf }, { "content-type": "text/plain" }),
    ]) {
      assert.equal(response.status, 403);
      assert.match(await response.text(), /token is missing or stale/);
    }
    const anonymous = await fetch(at(`/console/applications/${CLIENT.id}/disable`), {
      method: "POST",
      headers: FORM,
      body: new URLSearchParams({ csrf }),
      redirect: "manual",
    });
    assert.equal(anonymous.status, 403);
    await anonymous.body?.cancel();
    assert.equal((await clientCredentials(platform.url, "basic")).status, 200, "nothing was disabled");

    const accepted = await post({ csrf });
    assert.equal(accepted.status, 303);
    const enable = await fetch(at(`/console/applications/${CLIENT.id}/enable`), {
      method: "POST",
      headers: { ...FORM, cookie },
      body: new URLSearchParams({ csrf }),
      redirect: "manual",
    });
    assert.equal(enable.status, 303);
  });

  it("signs out: the session's cookie no longer opens the console", async () => {
    await page.goto(at("/console"));
    const cookie = `console_session=${(await sessionCookie())!.value}`;
    await Promise.all([page.waitForURL(at("/console/sign-in")), page.click("button:has-text('Sign out')")]);
    assert.equal(await sessionCookie(), undefined);
    const after = await fetch(at("/console"), { headers: { cookie }, redirect: "manual" });
    assert.equal(after.status, 303);
    assert.equal(after.headers.get("location"), "/console/sign-in");
  });

  it("locks out an address after too many wrong tokens, the right one too", async () => {
    const signIn = (token: string) =>
      fetch(at("/console/sign-in"), {
        method: "POST",
        headers: FORM,
        body: new URLSearchParams({ token }),
        redirect: "manual",
      });
    for (let attempt = 1; attempt <= 5; attempt++) {
      const refused = await signIn(`wrong-token-${attempt}-0123456789abcdefghij`);
      assert.equal(refused.status, 401, `attempt ${attempt}`);
      await refused.body?.cancel();
    }
    const locked = await signIn(ADMIN_TOKEN);
    assert.equal(locked.status, 429);
    assert.match(await locked.text(), /Too many failed sign-ins from your address: try again in \d+ s/);
    assert.equal(locked.headers.get("set-cookie"), null);
  });
});
