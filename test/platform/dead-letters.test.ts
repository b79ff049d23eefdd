import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { CampusAppStandIn } from "../support/campus-app-stand-in.ts";
import { startTestPlatform, type TestPlatform, testModes, withBootstrap } from "../support/platform.ts";
import { after, before, describe, it } from "../support/skippable-suites.ts";
import { issueToken } from "../support/tokens.ts";
import { waitFor } from "../support/wait.ts";

const ADMIN_TOKEN = "dead-letter-admin-token-0123456789abcdef";
const APP = { id: "dead-letter-app", secret: "dead-letter-app-secret-0123456789abcdef" };

interface Queue {
  queue: string;
  ready: number;
  consumers: number;
  dead: number;
  replayable: boolean;
}
interface DeadLetter {
  messageId: string;
  reason: string;
  attempts: number;
  message: { taskIds: string[] };
}

for (const mode of await testModes()) {
  describe(`dead letters (${mode.name})`, { skip: mode.skip }, () => {
    let platform: TestPlatform;
    let campusApp: CampusAppStandIn;
    let cleanup: () => Promise<void>;
    let token: string;

    const admin = async (path: string, init: { method?: string; body?: unknown } = {}) => {
      const response = await fetch(`${platform.url}/admin/queues${path}`, {
        method: init.method ?? "GET",
        headers: {
          authorization: `Bearer ${ADMIN_TOKEN}`,
          ...(init.body === undefined ? {} : { "content-type": "application/json" }),
        },
        ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
      });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };
    const queue = async (name: string) =>
      ((await admin("")).body.items as Queue[]).find((item) => item.queue === name)!;
    const letters = async () => (await admin("/notify.app/dead-letters")).body.items as DeadLetter[];

    /** Sends one app notification to `account`; answers with its id. */
    async function notify(account: string): Promise<string> {
      const response = await fetch(`${platform.url}/v1/notification?access_token=${token}`, {
        method: "PUT",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ channels: ["app"], accounts: [account], name: "Library", content: "Due" }),
      });
      const body = (await response.json()) as { errno: number; entities: { id: string }[] };
      assert.equal(body.errno, 0, JSON.stringify(body));
      return body.entities[0]!.id;
    }
    async function taskStatus(id: string): Promise<string> {
      const reader = await issueToken(platform.url, APP, {
        grant_type: "client_credentials",
        scope: "notifications",
      });
      const response = await fetch(`${platform.url}/notification/status?id=${id}&access_token=${reader}`);
      const body = (await response.json()) as { entities: { tasks: { sendingStatus: string }[] }[] };
      return body.entities[0]!.tasks[0]!.sendingStatus;
    }

    before(async () => {
      campusApp = await CampusAppStandIn.start("campus-token");
      const prepared = await mode.prepare();
      cleanup = prepared.cleanup;
      platform = await startTestPlatform({
        ...(await withBootstrap(prepared.env, {
          applications: [{ ...APP, name: "Library", scopes: ["send_app_notification", "notifications"] }],
          channels: [
            {
              name: "app",
              plugin: "app",
              config: { baseUrl: campusApp.url, token: "campus-token" },
              permittedApplications: [APP.id],
            },
          ],
        })),
        ADMIN_TOKEN,
        NOTIFY_RETRY_DELAYS_MS: "50",
      });
      token = await issueToken(platform.url, APP, {
        grant_type: "client_credentials",
        scope: "send_app_notification",
      });
    });
    after(async () => {
      await platform?.stop();
      await campusApp?.close();
      await cleanup?.();
    });

    it("records a recipient the campus app refuses as the task's failure, leaving no dead letter", async () => {
      const account = `no-app-${randomUUID().slice(0, 8)}`;
      campusApp.notInstalled.add(account);
      const id = await notify(account);
      await waitFor(async () => (await taskStatus(id)) === "fail", 10_000, "the refusal recorded");
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal((await queue("notify.app")).dead, 0);
      assert.deepEqual(await letters(), []);
    });

    it("lists the job of a provider that kept failing, replays it once the provider is back, and purges", async () => {
      const flaky = `flaky-${randomUUID().slice(0, 8)}`;
      const down = { status: 503, body: { errno: 50300, error: "push service down" } };
      campusApp.scripted.set(flaky, [down, down]);
      const id = await notify(flaky);
      await waitFor(async () => (await queue("notify.app")).dead === 1, 10_000, "the job dead-lettered");
      assert.equal(await taskStatus(id), "fail");
      const [letter] = await letters();
      assert.match(letter!.reason, /push service down/);
      assert.equal(letter!.attempts, 2);
      assert.equal(letter!.message.taskIds.length, 1);
      assert.deepEqual(await letters(), [letter], "reading takes nothing away");

      const other = `flaky-${randomUUID().slice(0, 8)}`;
      campusApp.scripted.set(other, [down, down]);
      await notify(other);
      await waitFor(async () => (await queue("notify.app")).dead === 2, 10_000, "a second dead letter");

      const missing = await admin("/notify.app/dead-letters/replay", {
        method: "POST",
        body: { messageId: "nope" },
      });
      assert.equal(missing.status, 404);
      const replayed = await admin("/notify.app/dead-letters/replay", {
        method: "POST",
        body: { messageId: letter!.messageId },
      });
      assert.deepEqual(replayed, { status: 200, body: { replayed: 1 } });
      // The replayed job tries its failed task again, and the campus app, back, takes it.
      await waitFor(async () => (await taskStatus(id)) === "sent", 10_000, "the replayed task sent");
      assert.equal(campusApp.received.filter((pushed) => pushed.account === flaky).length, 1);
      assert.equal((await queue("notify.app")).dead, 1, "the other letter stays");
      const left = await letters();
      assert.equal(left.length, 1);
      assert.notEqual(left[0]!.messageId, letter!.messageId);

      const purged = await admin("/notify.app/dead-letters", { method: "DELETE" });
      assert.deepEqual(purged, { status: 200, body: { purged: 1 } });
      assert.equal((await queue("notify.app")).dead, 0);
    });

    it("lists every queue and refuses to replay jobs whose callers no longer wait", async () => {
      const queues = (await admin("")).body.items as Queue[];
      assert.ok(queues.some((item) => item.queue === "sign" && !item.replayable));
      assert.ok(queues.some((item) => item.queue === "notify.app" && item.replayable && item.consumers >= 1));
      const refused = await admin("/sign/dead-letters/replay", { method: "POST" });
      assert.equal(refused.status, 409);
      assert.equal((await admin("/no.such.queue/dead-letters")).status, 404);
      assert.equal((await admin("/Bad Name/dead-letters")).status, 400);
      const bad = await admin("/notify.app/dead-letters/replay", { method: "POST", body: { limit: 0 } });
      assert.equal(bad.status, 400);
      const anonymous = await fetch(`${platform.url}/admin/queues`);
      assert.equal(anonymous.status, 401);
    });
  });
}
