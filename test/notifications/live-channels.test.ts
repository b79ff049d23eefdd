import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { CampusAppStandIn } from "../support/campus-app-stand-in.ts";
import { startTestPlatform, type TestPlatform, testModes, withBootstrap } from "../support/platform.ts";
import { distributedSetup, PlatformProcess } from "../support/platform-processes.ts";
import { realServicesSkip } from "../support/services.ts";
import { after, before, describe, it } from "../support/skippable-suites.ts";
import { issueToken } from "../support/tokens.ts";
import { waitFor } from "../support/wait.ts";

const ADMIN_TOKEN = "live-channels-admin-token-0123456789abcd";
const APP = { id: "live-channels-app", secret: "live-channels-app-secret-0123456789abcdef" };
const CAMPUS_TOKEN = "campus-token-from-the-environment";
/** The workers read the campus app's token from this variable; the database holds only its name. */
process.env.TEST_CAMPUS_TOKEN = CAMPUS_TOKEN;

const appChannel = (baseUrl: string, token: unknown = { env: "TEST_CAMPUS_TOKEN" }) => ({
  name: "app",
  plugin: "app",
  config: { baseUrl, token },
  permittedApplications: [APP.id],
});
const bootstrapWith = (channel: object) => ({
  applications: [{ ...APP, name: "Library", scopes: ["send_app_notification"] }],
  channels: [channel],
});

async function apply(url: string, document: unknown) {
  const response = await fetch(`${url}/admin/bootstrap`, {
    method: "PUT",
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify(document),
  });
  return { status: response.status, body: (await response.json()) as { error?: string } };
}

async function channels(url: string) {
  const response = await fetch(`${url}/admin/channels`, {
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  return ((await response.json()) as { items: { name: string; config: Record<string, unknown> }[] }).items;
}

/** Sends an app notification to `account` through the gateway at `url`. */
async function notify(url: string, account: string): Promise<{ errno: number; error: string }> {
  const token = await issueToken(url, APP, {
    grant_type: "client_credentials",
    scope: "send_app_notification",
  });
  const response = await fetch(`${url}/v1/notification?access_token=${token}`, {
    method: "PUT",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ channels: ["app"], accounts: [account], name: "Library", content: "Due back" }),
  });
  return (await response.json()) as { errno: number; error: string };
}

/** Sends until a message reaches `to`; answers how long the change took to be followed. */
async function sendsReach(url: string, to: CampusAppStandIn, within: number): Promise<number> {
  const started = Date.now();
  await waitFor(
    async () => {
      const account = `reader-${randomUUID().slice(0, 8)}`;
      assert.equal((await notify(url, account)).errno, 0);
      await new Promise((resolve) => setTimeout(resolve, 200));
      return to.received.some((pushed) => pushed.account === account);
    },
    within,
    "a send through the channel as changed",
  );
  return Date.now() - started;
}

for (const mode of await testModes()) {
  describe(`channels configured live (${mode.name})`, { skip: mode.skip }, () => {
    let platform: TestPlatform;
    let first: CampusAppStandIn;
    let second: CampusAppStandIn;
    let cleanup: () => Promise<void>;

    before(async () => {
      first = await CampusAppStandIn.start(CAMPUS_TOKEN);
      second = await CampusAppStandIn.start(CAMPUS_TOKEN);
      const prepared = await mode.prepare();
      cleanup = prepared.cleanup;
      platform = await startTestPlatform({
        ...(await withBootstrap(prepared.env, bootstrapWith(appChannel(first.url)))),
        ADMIN_TOKEN,
      });
    });
    after(async () => {
      await platform?.stop();
      await Promise.all([first?.close(), second?.close()]);
      await cleanup?.();
    });

    it("sends with a credential read from the workers' environment, the database holding its name", async () => {
      const account = `reader-${randomUUID().slice(0, 8)}`;
      assert.equal((await notify(platform.url, account)).errno, 0);
      await waitFor(
        () => first.received.some((pushed) => pushed.account === account),
        5000,
        "the first send",
      );
      const [listed] = await channels(platform.url);
      assert.deepEqual(listed!.config, { baseUrl: first.url, token: { env: "TEST_CAMPUS_TOKEN" } });
    });

    it("refuses a channel its plugin would refuse, naming the channel and the field, and keeps the old one", async () => {
      const badUrl = await apply(platform.url, { channels: [appChannel("not a url")] });
      assert.equal(badUrl.status, 400);
      assert.match(badUrl.body.error!, /^channel app: config\.baseUrl: /);
      const unknownPlugin = await apply(platform.url, {
        channels: [{ name: "campus_wall", plugin: "./plugins/no-such-plugin.ts" }],
      });
      assert.equal(unknownPlugin.status, 400);
      assert.match(
        unknownPlugin.body.error!,
        /^channel campus_wall: channel plugin \.\/plugins\/no-such-plugin\.ts cannot be loaded/,
      );
      assert.deepEqual(
        (await channels(platform.url)).map((channel) => [channel.name, channel.config.baseUrl]),
        [["app", first.url]],
      );
    });

    it("moves the channel to another endpoint without a restart, and masks an inline credential", async () => {
      const applied = await apply(platform.url, { channels: [appChannel(second.url, CAMPUS_TOKEN)] });
      assert.equal(applied.status, 200, applied.body.error);
      const tookMs = await sendsReach(platform.url, second, 5000);
      assert.ok(tookMs < 5000, `followed in ${tookMs} ms`);
      const before = first.received.length;
      const account = `reader-${randomUUID().slice(0, 8)}`;
      assert.equal((await notify(platform.url, account)).errno, 0);
      await waitFor(() => second.received.some((pushed) => pushed.account === account), 5000);
      assert.equal(first.received.length, before, "the old endpoint gets nothing more");
      const [listed] = await channels(platform.url);
      assert.equal(listed!.config.token, "********");
      assert.ok(!JSON.stringify(await channels(platform.url)).includes(CAMPUS_TOKEN));
    });

    it("removes a channel: sends naming it are refused", async () => {
      const removed = await fetch(`${platform.url}/admin/channels/app`, {
        method: "DELETE",
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      });
      assert.equal(removed.status, 200);
      await waitFor(async () => (await notify(platform.url, "anyone")).errno !== 0, 5000, "the refusal");
      assert.match((await notify(platform.url, "anyone")).error, /app is not configured/);
      const again = await fetch(`${platform.url}/admin/channels/app`, {
        method: "DELETE",
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      });
      assert.equal(again.status, 404);
    });
  });
}

describe("a channel changed through the gateway, followed by a worker process", {
  skip: await realServicesSkip(),
}, () => {
  let setup: Awaited<ReturnType<typeof distributedSetup>>;
  let gateway: PlatformProcess;
  let worker: PlatformProcess;
  let first: CampusAppStandIn;
  let second: CampusAppStandIn;

  before(async () => {
    first = await CampusAppStandIn.start(CAMPUS_TOKEN);
    second = await CampusAppStandIn.start(CAMPUS_TOKEN);
    setup = await distributedSetup(bootstrapWith(appChannel(first.url)), {
      ADMIN_TOKEN,
      TEST_CAMPUS_TOKEN: CAMPUS_TOKEN,
    });
    gateway = await PlatformProcess.gateway(setup.env);
    worker = await PlatformProcess.worker(setup.env, ["notify.app"]);
  });
  after(async () => {
    await Promise.all([gateway?.stop(), worker?.stop()]);
    await setup?.cleanup();
    await Promise.all([first?.close(), second?.close()]);
  });

  it("sends through the new endpoint within 5 s, no process restarted", async () => {
    await sendsReach(gateway.url, first, 10_000);
    assert.equal((await apply(gateway.url, { channels: [appChannel(second.url)] })).status, 200);
    const tookMs = await sendsReach(gateway.url, second, 5000);
    assert.ok(tookMs < 5000, `followed in ${tookMs} ms`);
  });
});
