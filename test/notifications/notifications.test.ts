import assert from "node:assert/strict";
import { createHmac, randomUUID } from "node:crypto";
import { CampusAppStandIn } from "../support/campus-app-stand-in.ts";
import { startTestPlatform, type TestPlatform, testModes, withBootstrap } from "../support/platform.ts";
import { RecordingServer } from "../support/recording-server.ts";
import { after, before, describe, it } from "../support/skippable-suites.ts";
import { startSmtp } from "../support/smtp-server.ts";
import { issueToken } from "../support/tokens.ts";
import { TwilioStandIn } from "../support/twilio-stand-in.ts";
import { waitFor } from "../support/wait.ts";

const SECRET = "notify-app-secret-0123456789abcdefghijklm";
const OTHER_SECRET = "other-app-secret-0123456789abcdefghijklmn";
const WALL_SECRET = "campus-wall-shared-secret-0123456789";

/** A delivery task as the status API returns it. */
interface TaskView {
  taskId: string;
  channel: string;
  email?: string;
  account?: string;
  sendingStatus: string;
  readingStatus: string;
  sendtime: number;
  readtime?: number;
}

interface Envelope {
  errno: number;
  error: string;
  total: number;
  entities: { id: string }[];
}

for (const mode of await testModes()) {
  describe(`notifications by e-mail (${mode.name})`, { skip: mode.skip }, () => {
    let platform: TestPlatform;
    let cleanup: () => Promise<void>;
    let smtp: Awaited<ReturnType<typeof startSmtp>>;
    let twilio: TwilioStandIn;
    let campusApp: CampusAppStandIn;
    let wall: RecordingServer;
    let chat: RecordingServer;
    let msgapp: RecordingServer;

    const userToken = (account: string, [id, secret]: [string, string] = ["notify-app", SECRET]) =>
      issueToken(
        platform.url,
        { id, secret },
        {
          grant_type: "password",
          username: account,
          password: "sender password 1",
          scope: "send_notification",
        },
      );
    const appToken = (id: string, secret: string, scope: string) =>
      issueToken(platform.url, { id, secret }, { grant_type: "client_credentials", scope });

    async function send(token: string, body: unknown) {
      const response = await fetch(`${platform.url}/v1/notification?access_token=${token}`, {
        method: "PUT",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      return { status: response.status, body: (await response.json()) as Envelope };
    }

    async function status(token: string, ids: string[]) {
      const query = ids.map((id) => `id=${id}`).join("&");
      const response = await fetch(`${platform.url}/notification/status?${query}&access_token=${token}`);
      return (await response.json()) as {
        errno: number;
        total: number;
        entities: { id: string; tasks: TaskView[] }[];
      };
    }

    before(async () => {
      smtp = await startSmtp();
      twilio = await TwilioStandIn.start("AC0123456789", "twilio-token");
      campusApp = await CampusAppStandIn.start("campus-app-token");
      wall = await RecordingServer.start((request) =>
        request.body.includes("refuse-me")
          ? { status: 200, body: { errno: 42, error: "user unknown to the wall", entities: [], total: 0 } }
          : { status: 200, body: { errno: 0, error: "", entities: [], total: 0 } },
      );
      chat = await RecordingServer.start(() => ({ status: 200, body: { ok: true } }));
      msgapp = await RecordingServer.start(() => ({
        status: 200,
        body: { errcode: 0, errmsg: "ok", msgid: 7001 },
      }));
      const prepared = await mode.prepare();
      cleanup = prepared.cleanup;
      platform = await startTestPlatform({
        ...(await withBootstrap(prepared.env, {
          tenants: [{ domain: "example.edu", name: "Example University" }],
          applications: [
            {
              id: "notify-app",
              secret: SECRET,
              name: "Notifier",
              scopes: ["send_notification", "send_app_notification", "notifications", "modify_notification"],
            },
            {
              id: "other-app",
              secret: OTHER_SECRET,
              name: "Other",
              scopes: ["notifications", "send_app_notification"],
            },
            {
              id: "plain-app",
              secret: OTHER_SECRET,
              name: "Not approved for SMS",
              scopes: ["send_notification"],
            },
          ],
          users: [
            {
              tenant: "example.edu",
              account: "mailer",
              name: "Mail Sender",
              password: "sender password 1",
              mailEnabled: true,
            },
            { tenant: "example.edu", account: "nomail", name: "No Mail", password: "sender password 1" },
            {
              tenant: "example.edu",
              account: "sms_robot",
              name: "SMS sender",
              password: "sender password 1",
            },
          ],
          channels: [
            {
              name: "email",
              plugin: "email",
              config: { host: "127.0.0.1", port: smtp.port, from: "noreply@example.edu" },
            },
            {
              name: "sms",
              plugin: "sms",
              config: {
                accountSid: "AC0123456789",
                authToken: "twilio-token",
                from: "+15550000000",
                baseUrl: twilio.url,
              },
              permittedApplications: ["notify-app"],
              ratePerSecond: 20,
            },
            {
              name: "app",
              plugin: "app",
              // Short, so the app that never answers runs out of attempts within the test.
              config: { baseUrl: campusApp.url, token: "campus-app-token", timeoutMs: 3000 },
              permittedApplications: ["notify-app", "other-app"],
            },
            {
              name: "campus_wall",
              plugin: "http-channel",
              config: { url: `${wall.url}/Notification`, secret: WALL_SECRET },
            },
            {
              name: "msgapp_template",
              plugin: "msgapp_template",
              config: { baseUrl: msgapp.url, token: "service-account-token" },
            },
            {
              name: "team_chat",
              plugin: "./plugins/chat-webhook/chat-webhook-plugin.ts",
              config: { webhookUrl: `${chat.url}/hooks/platform` },
            },
          ],
        })),

        NOTIFY_RETRY_DELAYS_MS: "150,300",
        NOTIFY_SWEEP_INTERVAL_MS: "200",
      });
    });

    after(async () => {
      await platform?.stop();
      await cleanup?.();
      await smtp?.close();
      await twilio?.close();
      await campusApp?.close();
      await wall?.close();
      await chat?.close();
      await msgapp?.close();
    });

    it("records the notification, delivers one mail per recipient with html winning, and reports sent", async () => {
      const token = await userToken("mailer");
      const recipients = [`a-${randomUUID()}@example.edu`, `b-${randomUUID()}@example.edu`];
      const sent = await send(token, {
        channels: ["email"],
        name: "Exam timetable",
        content: "plain text loses",
        html: "<p>The <b>html</b> body wins</p>",
        emails: recipients,
      });
      assert.equal(sent.status, 200);
      assert.equal(sent.body.errno, 0);
      assert.equal(sent.body.total, 0);
      const id = sent.body.entities[0]!.id;
      assert.match(id, /^[0-9a-f-]{36}$/);

      await waitFor(
        () => recipients.every((r) => smtp.mails.some((m) => m.to.includes(r))),
        10_000,
        "the mails",
      );
      const mail = smtp.mails.find((m) => m.to.includes(recipients[0]!))!;
      assert.match(mail.raw, /Subject: Exam timetable/);
      assert.match(mail.raw, /text\/html/);
      assert.doesNotMatch(mail.raw, /plain text loses/);

      const reader = await appToken("notify-app", SECRET, "notifications");
      await waitFor(
        async () =>
          (await status(reader, [id])).entities[0]?.tasks.every((t) => t.sendingStatus === "sent") ?? false,
        10_000,
        "sent",
      );
      const [entity] = (await status(reader, [id])).entities;
      assert.equal(entity!.tasks.length, 2);
      assert.deepEqual(entity!.tasks.map((t) => t.email).sort(), [...recipients].sort());
      for (const task of entity!.tasks) {
        assert.equal(task.channel, "email");
        assert.equal(task.readingStatus, "unknown");
        assert.ok(Math.abs(task.sendtime - Date.now()) < 60_000);
      }

      const marker = await appToken("notify-app", SECRET, "modify_notification");
      const readtime = Date.now() - 1000;
      const marked = await fetch(`${platform.url}/notification/status?access_token=${marker}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ tasks: [{ taskId: entity!.tasks[0]!.taskId, read: true, readtime }] }),
      });
      const markedBody = (await marked.json()) as { entities: { tasks: TaskView[] }[] };
      const readTask = markedBody.entities[0]!.tasks.find((t) => t.taskId === entity!.tasks[0]!.taskId)!;
      assert.equal(readTask.readingStatus, "read");
      assert.equal(readTask.readtime, readtime);
    });

    it("sends nothing twice for the same client-supplied id", async () => {
      const token = await userToken("mailer");
      const id = randomUUID();
      const recipient = `once-${randomUUID()}@example.edu`;
      const body = { id, channels: ["email"], name: "Once", content: "only once", emails: [recipient] };
      const first = await send(token, body);
      const second = await send(token, body);
      assert.equal(first.status, 200);
      assert.deepEqual(second.body, first.body);
      await waitFor(() => smtp.mails.some((m) => m.to.includes(recipient)), 10_000, "the mail");
      await new Promise((resolve) => setTimeout(resolve, 500));
      assert.equal(smtp.mails.filter((m) => m.to.includes(recipient)).length, 1);
      const reader = await appToken("notify-app", SECRET, "notifications");
      assert.equal((await status(reader, [id])).entities[0]!.tasks.length, 1);
    });

    it("succeeds but mails nothing when the sender has no mail service, and the task says why", async () => {
      const token = await userToken("nomail");
      const recipient = `none-${randomUUID()}@example.edu`;
      const sent = await send(token, { channels: ["email"], name: "N", content: "c", emails: [recipient] });
      assert.equal(sent.body.errno, 0);
      const reader = await appToken("notify-app", SECRET, "notifications");
      const id = sent.body.entities[0]!.id;
      await waitFor(
        async () => (await status(reader, [id])).entities[0]?.tasks[0]?.sendingStatus === "fail",
        10_000,
        "fail",
      );
      assert.equal(
        smtp.mails.some((m) => m.to.includes(recipient)),
        false,
      );
      const [task] = await platform.running.platform.db
        .sql`select detail from delivery_tasks where notification_id = ${id}`;
      assert.match(String(task!.detail), /no mail service enabled/);
    });

    it("refuses a broken rule with errno and the field, recording nothing", async () => {
      const token = await userToken("mailer");
      const before = (
        await platform.running.platform.db.sql`select count(*)::int as n from notifications`
      )[0]!.n;
      const broken = await send(token, {
        channels: ["email"],
        emails: ["x@example.edu"],
        content: "no name",
      });
      assert.equal(broken.status, 400);
      assert.deepEqual(broken.body, { errno: 10001, error: "name: is required for channel email", total: 0 });
      const unknown = await send(token, {
        channels: ["pigeon_post"],
        users: [{ account: "alice" }],
        content: "c",
      });
      assert.equal(unknown.body.error, "channels: has unknown channel pigeon_post");
      const after = (await platform.running.platform.db.sql`select count(*)::int as n from notifications`)[0]!
        .n;
      assert.equal(after, before);
    });

    it("lets a client-credentials token send on the app channel only, and shows tasks only to their sender", async () => {
      const appOnly = await appToken("notify-app", SECRET, "send_app_notification");
      const refused = await send(appOnly, {
        channels: ["email"],
        name: "n",
        content: "c",
        emails: ["x@example.edu"],
      });
      assert.equal(refused.status, 403);
      assert.match(String(refused.body.error), /send_app_notification covers the app channel only/);

      const token = await userToken("mailer");
      const sent = await send(token, {
        channels: ["email"],
        name: "Mine",
        content: "c",
        emails: [`m-${randomUUID()}@example.edu`],
      });
      const id = sent.body.entities[0]!.id;
      const other = await appToken("other-app", OTHER_SECRET, "notifications");
      const seen = await status(other, [id]);
      assert.equal(seen.errno, 0);
      assert.deepEqual(seen.entities, []);
      const missingScope = await fetch(
        `${platform.url}/notification/status?id=${id}&access_token=${appOnly}`,
      );
      assert.equal(missingScope.status, 403);
    });

    it("texts each phone through the real twilio client, abstract winning over content", async () => {
      const token = await userToken("mailer");
      const phones = ["+15551230001", "+15551230002"];
      const sent = await send(token, {
        channels: ["sms"],
        phones,
        abstract: "Short abstract",
        content: "Long content",
      });
      assert.equal(sent.status, 200, JSON.stringify(sent.body));
      const id = sent.body.entities[0]!.id;
      await waitFor(() => phones.every((p) => twilio.received.some((m) => m.to === p)), 10_000, "the texts");
      const text = twilio.received.find((m) => m.to === phones[0])!;
      assert.equal(text.body, "Short abstract");
      assert.equal(text.from, "+15550000000");
      const reader = await appToken("notify-app", SECRET, "notifications");
      await waitFor(
        async () => (await status(reader, [id])).entities[0]!.tasks.every((t) => t.sendingStatus === "sent"),
        10_000,
        "sent",
      );
    });

    it("retries with the configured delays and reports sent once the upstream recovers", async () => {
      const token = await userToken("mailer");
      const phone = "+15559990001";
      twilio.failTimes.set(phone, 2);
      const sent = await send(token, { channels: ["sms"], phones: [phone], content: "third time lucky" });
      const id = sent.body.entities[0]!.id;
      const reader = await appToken("notify-app", SECRET, "notifications");
      await waitFor(
        async () => (await status(reader, [id])).entities[0]!.tasks[0]!.sendingStatus === "sent",
        10_000,
        "sent",
      );
      assert.equal(twilio.received.filter((m) => m.to === phone).length, 1);
      const [row] = await platform.running.platform.db
        .sql`select attempts from delivery_tasks where notification_id = ${id}`;
      assert.equal(row!.attempts, 3);
    });

    it("fails after the last attempt, or at once for a refusal, keeping the upstream's error text", async () => {
      const token = await userToken("mailer");
      const flaky = "+15559990002";
      const invalid = "+15559990003";
      twilio.failTimes.set(flaky, 10);
      twilio.invalid.add(invalid);
      const sent = await send(token, { channels: ["sms"], phones: [flaky, invalid], content: "doomed" });
      const id = sent.body.entities[0]!.id;
      const reader = await appToken("notify-app", SECRET, "notifications");
      await waitFor(
        async () => (await status(reader, [id])).entities[0]!.tasks.every((t) => t.sendingStatus === "fail"),
        10_000,
        "fail",
      );
      const rows = await platform.running.platform.db.sql`
        select phone, attempts, detail from delivery_tasks where notification_id = ${id} order by position`;
      assert.equal(rows[0]!.attempts, 3, "every attempt used on a retryable failure");
      assert.match(String(rows[0]!.detail), /Service unavailable/);
      assert.equal(rows[1]!.attempts, 1, "a refusal is not retried");
      assert.match(String(rows[1]!.detail), /is not a valid phone number/);
    });

    it("delivers a task whose job never reached the broker (the sweeper republishes it)", async () => {
      const sql = platform.running.platform.db.sql;
      const id = randomUUID();
      const phone = "+15559990004";
      await sql`insert into notifications (id, application_id, body)
                values (${id}, 'notify-app', ${sql.json({ id, channels: ["sms"], phones: [phone], content: "late" })})`;
      await sql`insert into delivery_tasks (notification_id, requested_channel, channel, position, phone, updated_at)
                values (${id}, 'sms', 'sms', 0, ${phone}, now() - interval '1 minute')`;
      await waitFor(() => twilio.received.some((m) => m.to === phone), 10_000, "the swept task's text");
    });

    it("takes up a retrying task whose job was lost, or fails it when it has no attempt left", async () => {
      const sql = platform.running.platform.db.sql;
      const id = randomUUID();
      const [withAttempts, spent] = ["+15559990006", "+15559990007"];
      await sql`insert into notifications (id, application_id, body)
                values (${id}, 'notify-app', ${sql.json({ id, channels: ["sms"], phones: [withAttempts, spent], content: "lost job" })})`;
      // Both last tried long ago; one has attempts left (three in all here), the other none.
      await sql`insert into delivery_tasks (notification_id, requested_channel, channel, position, phone, sending_status, attempts, detail, updated_at)
                values (${id}, 'sms', 'sms', 0, ${withAttempts}, 'retrying', 1, 'gateway timeout', now() - interval '2 hours'),
                       (${id}, 'sms', 'sms', 1, ${spent}, 'retrying', 3, 'gateway timeout', now() - interval '2 hours')`;
      await waitFor(
        () => twilio.received.some((m) => m.to === withAttempts),
        10_000,
        "the stale task's text",
      );
      await waitFor(
        async () => {
          const [row] =
            await sql`select sending_status from delivery_tasks where phone = ${spent} and notification_id = ${id}`;
          return row!.sending_status === "fail";
        },
        10_000,
        "the spent task failed",
      );
      assert.ok(!twilio.received.some((m) => m.to === spent), "a task without attempts left is not sent");
      const [spentRow] =
        await sql`select detail from delivery_tasks where phone = ${spent} and notification_id = ${id}`;
      assert.match(String(spentRow!.detail), /gateway timeout \(gave up: no attempt left\)/);
    });

    it("takes SMS only from sms_ accounts, or from applications the operators approved", async () => {
      const plain = await userToken("mailer", ["plain-app", OTHER_SECRET]);
      const refused = await send(plain, { channels: ["sms"], phones: ["+15559990005"], content: "c" });
      assert.equal(refused.status, 403);
      assert.match(String(refused.body.error), /sms_ account/);
      const robot = await userToken("sms_robot", ["plain-app", OTHER_SECRET]);
      const accepted = await send(robot, {
        channels: ["sms"],
        phones: ["+15559990005"],
        content: "from a robot",
      });
      assert.equal(accepted.status, 200);
      await waitFor(() => twilio.received.some((m) => m.body === "from a robot"), 10_000, "the text");
    });

    it("pushes app messages with spec 000's substitutions, on a client-credentials token", async () => {
      const token = await appToken("other-app", OTHER_SECRET, "send_app_notification");
      const account = `app-${randomUUID().slice(0, 8)}`;
      const sent = await send(token, {
        channels: ["app"],
        accounts: [account],
        name: "Library",
        content: "Book due",
      });
      assert.equal(sent.status, 200, JSON.stringify(sent.body));
      await waitFor(() => campusApp.received.some((m) => m.account === account), 10_000, "the push");
      const push = campusApp.received.find((m) => m.account === account)!;
      assert.deepEqual(push.message, {
        displayStyle: "basic",
        title: "Library",
        abstract: "Library",
        content: [{ name: "内容", value: "Book due" }],
      });
      const [task] = await platform.running.platform.db.sql`
        select id from delivery_tasks where notification_id = ${sent.body.entities[0]!.id}`;
      assert.equal(push.idempotencyKey, task!.id, "the task id is the idempotency key");
    });

    it("falls back from the app to SMS for app_sms when the app refuses, and says which channel was used", async () => {
      const token = await userToken("mailer");
      const [installed, refused] = [`in-${randomUUID().slice(0, 8)}`, `out-${randomUUID().slice(0, 8)}`];
      campusApp.notInstalled.add(refused);
      const phones = ["+15557770001", "+15557770002", "+15557770003"];
      const sent = await send(token, {
        channels: ["app_sms"],
        accounts: [installed, refused, ""],
        phones,
        name: "Fees",
        abstract: "abstract loses for app_sms",
        content: "Fee reminder",
      });
      assert.equal(sent.status, 200, JSON.stringify(sent.body));
      const id = sent.body.entities[0]!.id;
      const reader = await appToken("notify-app", SECRET, "notifications");
      await waitFor(
        async () => (await status(reader, [id])).entities[0]!.tasks.every((t) => t.sendingStatus === "sent"),
        10_000,
        "all sent",
      );
      const tasks = (await status(reader, [id])).entities[0]!.tasks;
      const byAccount = new Map(tasks.map((t) => [t.account, t.channel]));
      assert.deepEqual(Object.fromEntries(byAccount), { [installed]: "app", [refused]: "sms", "": "sms" });
      assert.ok(campusApp.received.some((m) => m.account === installed));
      assert.equal(
        twilio.received.some((m) => m.to === phones[0]),
        false,
      );
      assert.equal(twilio.received.find((m) => m.to === phones[1])?.body, "Fee reminder");
      assert.equal(twilio.received.find((m) => m.to === phones[2])?.body, "Fee reminder");
    });

    /** Sends one app_sms notification to the account, with the phone to fall back to; its id. */
    async function appSmsTo(account: string, phone: string, content: string): Promise<string> {
      const token = await userToken("mailer");
      const sent = await send(token, {
        channels: ["app_sms"],
        accounts: [account],
        phones: [phone],
        name: "Campus notice",
        content,
      });
      assert.equal(sent.status, 200, JSON.stringify(sent.body));
      return sent.body.entities[0]!.id;
    }

    /** The notification's one task once it is no longer pending or retrying, as the status API shows it. */
    async function settledTask(id: string, timeoutMs = 10_000): Promise<TaskView> {
      const reader = await appToken("notify-app", SECRET, "notifications");
      let task: TaskView | undefined;
      await waitFor(
        async () => {
          task = (await status(reader, [id])).entities[0]!.tasks[0];
          return task?.sendingStatus === "sent" || task?.sendingStatus === "fail";
        },
        timeoutMs,
        "the task settled",
      );
      return task!;
    }

    async function taskRow(id: string) {
      const [row] = await platform.running.platform.db.sql<
        { id: string; attempts: number; detail: string | null }[]
      >`
        select id, attempts, detail from delivery_tasks where notification_id = ${id}`;
      return row!;
    }

    const texts = (phone: string) => twilio.received.filter((m) => m.to === phone).map((m) => m.body);
    const asked = (account: string) => campusApp.requests.filter((r) => r.account === account).length;

    it("texts an app_sms recipient whose campus app answers 400 errno 40001, once, and records both legs", async () => {
      const account = `none-${randomUUID().slice(0, 8)}`;
      const phone = "+15557770101";
      campusApp.notInstalled.add(account);
      const id = await appSmsTo(account, phone, "Exam moved to room 101");
      const task = await settledTask(id);
      assert.equal(task.sendingStatus, "sent");
      assert.equal(task.channel, "sms", "the channel actually used");
      assert.deepEqual(texts(phone), ["Exam moved to room 101"]);
      const row = await taskRow(id);
      assert.equal(row.attempts, 1, "a refusal is not retried");
      assert.equal(
        row.detail,
        `app: campus app: 400 errno 40001 app not installed for ${account}; SMS: sent`,
      );
      assert.equal(asked(account), 1);
    });

    it("texts an app_sms recipient when the campus app answers 200 with an errno other than 0", async () => {
      const account = `off-${randomUUID().slice(0, 8)}`;
      const phone = "+15557770102";
      campusApp.scripted.set(account, [
        { status: 200, body: { errno: 40003, error: "notifications turned off by the user" } },
      ]);
      const id = await appSmsTo(account, phone, "Library closes early");
      const task = await settledTask(id);
      assert.equal(task.sendingStatus, "sent");
      assert.equal(task.channel, "sms");
      assert.deepEqual(texts(phone), ["Library closes early"]);
      assert.ok(!campusApp.received.some((m) => m.account === account), "the app did not take it");
      const row = await taskRow(id);
      assert.equal(row.attempts, 1);
      assert.equal(
        row.detail,
        "app: campus app: 200 errno 40003 notifications turned off by the user; SMS: sent",
      );
    });

    it("retries the app after a 5xx and sends no SMS once the app takes the message", async () => {
      const account = `busy-${randomUUID().slice(0, 8)}`;
      const phone = "+15557770103";
      campusApp.scripted.set(account, [{ status: 503, body: { errno: 50300, error: "push service busy" } }]);
      const id = await appSmsTo(account, phone, "Fees due Friday");
      const task = await settledTask(id);
      assert.equal(task.sendingStatus, "sent");
      assert.equal(task.channel, "app");
      const pushes = campusApp.received.filter((m) => m.account === account);
      assert.equal(pushes.length, 1);
      assert.equal(asked(account), 2, "one refused attempt, one taken");
      const row = await taskRow(id);
      assert.equal(pushes[0]!.idempotencyKey, row.id, "the retry carries the same idempotency key");
      assert.equal(row.attempts, 2);
      assert.equal(row.detail, null);
      assert.deepEqual(texts(phone), [], "no SMS");
    });

    it("texts an app_sms recipient once the campus app has not answered on any attempt", async () => {
      const account = `mute-${randomUUID().slice(0, 8)}`;
      const phone = "+15557770104";
      campusApp.scripted.set(account, ["no answer", "no answer", "no answer"]);
      const id = await appSmsTo(account, phone, "Shuttle cancelled");
      // Three attempts (NOTIFY_RETRY_DELAYS_MS has two delays), each waiting the app's 3 s timeout.
      const task = await settledTask(id, 30_000);
      assert.equal(task.sendingStatus, "sent");
      assert.equal(task.channel, "sms");
      assert.equal(asked(account), 3, "the app leg used every attempt first");
      assert.deepEqual(texts(phone), ["Shuttle cancelled"]);
      const row = await taskRow(id);
      assert.equal(row.attempts, 3);
      assert.match(String(row.detail), /^app: campus app unreachable: .*timeout.*; SMS: sent$/i);
    });

    it("retries only the SMS of an app_sms task whose app leg failed, keeping the app's error on record", async () => {
      const account = `gone-${randomUUID().slice(0, 8)}`;
      const phone = "+15557770105";
      campusApp.notInstalled.add(account);
      twilio.failTimes.set(phone, 1);
      const id = await appSmsTo(account, phone, "Grades published");
      const task = await settledTask(id);
      assert.equal(task.sendingStatus, "sent");
      assert.equal(task.channel, "sms");
      assert.deepEqual(texts(phone), ["Grades published"]);
      assert.equal(asked(account), 1, "the app is not asked again once its leg has failed");
      const row = await taskRow(id);
      assert.equal(row.attempts, 2);
      assert.equal(
        row.detail,
        `app: campus app: 400 errno 40001 app not installed for ${account}; SMS: sent`,
      );
    });

    it("sends the SMS of an app_sms task once, however often its job is delivered", async () => {
      const sql = platform.running.platform.db.sql;
      const account = `twice-${randomUUID().slice(0, 8)}`;
      const phone = "+15557770106";
      campusApp.notInstalled.add(account);
      const id = await appSmsTo(account, phone, "Room change");
      assert.equal((await settledTask(id)).channel, "sms");
      const task = await taskRow(id);
      // The job again, with a task that only it delivers: once that one is sent, the job has run.
      const markerId = randomUUID();
      const marker = `marker-${randomUUID().slice(0, 8)}`;
      await sql`insert into notifications (id, application_id, body)
                values (${markerId}, 'notify-app', ${sql.json({ id: markerId, channels: ["app_sms"], accounts: [marker], phones: ["+15557770107"], content: "marker" })})`;
      const [markerTask] = await sql<{ id: string }[]>`
        insert into delivery_tasks (notification_id, requested_channel, channel, position, account, phone)
        values (${markerId}, 'app_sms', 'app', 0, ${marker}, '+15557770107') returning id`;
      await platform.running.platform.broker.publish("notify.app", { taskIds: [task.id, markerTask!.id] });
      await settledTask(markerId);
      assert.deepEqual(texts(phone), ["Room change"], "one SMS");
      assert.equal(asked(account), 1, "the app is not asked again");
      assert.ok(
        campusApp.received.some((m) => m.account === marker),
        "the job ran",
      );
    });

    it("calls an external channel with spec 000's body, one user per request, signed with HMAC", async () => {
      const token = await userToken("mailer");
      const visiting = { name: "Partner College", domain: "partner.example.org" };
      const users = [
        { id: "u-1", name: "Alice", account: "alice", email: "alice@example.edu", phone: "+15550101" },
        { id: "u-2", name: "Refused", account: "refuse-me" },
        { id: "u-3", name: "Guest", account: "guest", enterprise: visiting },
      ];
      const sent = await send(token, {
        channels: ["campus_wall"],
        name: "Lost and found",
        content: "A red umbrella",
        users,
      });
      assert.equal(sent.status, 200, JSON.stringify(sent.body));
      const id = sent.body.entities[0]!.id;
      const reader = await appToken("notify-app", SECRET, "notifications");
      await waitFor(
        async () =>
          (await status(reader, [id])).entities[0]!.tasks.every(
            (t) => t.sendingStatus !== "pending" && t.sendingStatus !== "retrying",
          ),
        10_000,
        "both delivered or refused",
      );
      const call = wall.requests.find((r) => r.body.includes('"account":"alice"') && r.body.includes(id))!;
      assert.equal(call.method, "PUT");
      assert.equal(call.path, "/Notification");
      const {
        users: [received],
        ...rest
      } = JSON.parse(call.body);
      assert.deepEqual(rest, {
        id,
        name: "Lost and found",
        content: "A red umbrella",
        channels: ["campus_wall"],
        emails: [],
        phones: [],
      });
      // Spec 000: each user carries `enterprise`; without one, the sending tenant.
      const { enterprise, ...alice } = received;
      assert.deepEqual(alice, users[0]);
      assert.equal(enterprise.domain, "example.edu");
      assert.equal(enterprise.name, "Example University");
      const guestCall = wall.requests.find(
        (r) => r.body.includes('"account":"guest"') && r.body.includes(id),
      )!;
      assert.deepEqual(JSON.parse(guestCall.body).users, [users[2]], "a given enterprise is kept");
      const expected = createHmac("sha256", WALL_SECRET)
        .update(`${call.headers["x-timestamp"]}.${call.body}`)
        .digest("hex");
      assert.equal(call.headers["x-signature"], `sha256=${expected}`);
      const tasks = (await status(reader, [id])).entities[0]!.tasks;
      assert.equal(tasks.find((t) => t.account === "alice")!.sendingStatus, "sent");
      assert.equal(tasks.find((t) => t.account === "refuse-me")!.sendingStatus, "fail");
      const [refused] = await platform.running.platform.db.sql`
        select detail from delivery_tasks where notification_id = ${id} and account = 'refuse-me'`;
      assert.match(String(refused!.detail), /errno 42 user unknown to the wall/);
    });

    it("loads a channel plugin from a path: the README's chat-webhook example", async () => {
      const token = await userToken("mailer");
      const sent = await send(token, {
        channels: ["team_chat"],
        name: "Deploy",
        content: "Gateway upgraded",
        users: [{ account: "ops" }],
      });
      assert.equal(sent.status, 200, JSON.stringify(sent.body));
      await waitFor(
        () => chat.requests.some((r) => r.body.includes("Gateway upgraded")),
        10_000,
        "the chat post",
      );
      const post = chat.requests.find((r) => r.body.includes("Gateway upgraded"))!;
      assert.equal(post.path, "/hooks/platform");
      assert.deepEqual(JSON.parse(post.body), { text: "@ops Deploy: Gateway upgraded" });
    });

    it("sends messaging-app template messages with the template, its data and the recipient account", async () => {
      const token = await userToken("mailer");
      const content = JSON.stringify({
        template_id: "TPL-42",
        data: { first: { value: "Grades out" }, course: { value: "Physics" } },
      });
      const sent = await send(token, {
        channels: ["msgapp_template"],
        users: [{ account: "wx-alice" }],
        content,
      });
      assert.equal(sent.status, 200, JSON.stringify(sent.body));
      await waitFor(
        () => msgapp.requests.some((r) => r.body.includes("wx-alice")),
        10_000,
        "the template message",
      );
      const call = msgapp.requests.find((r) => r.body.includes("wx-alice"))!;
      assert.equal(call.path, "/message/template/send?access_token=service-account-token");
      assert.deepEqual(JSON.parse(call.body), {
        template_id: "TPL-42",
        data: { first: { value: "Grades out" }, course: { value: "Physics" } },
        touser: "wx-alice",
      });
      const reader = await appToken("notify-app", SECRET, "notifications");
      const id = sent.body.entities[0]!.id;
      await waitFor(
        async () => (await status(reader, [id])).entities[0]!.tasks[0]!.sendingStatus === "sent",
        10_000,
        "sent",
      );
    });

    it("holds deliveries to a channel's rate, delaying rather than dropping them", async () => {
      // The sms channel allows 20 a second: 30 texts take at least half a second more than 20 do.
      await new Promise((resolve) => setTimeout(resolve, 1000)); // let the bucket fill
      const token = await userToken("mailer");
      const phones = Array.from({ length: 30 }, (_, i) => `+1555888${String(i).padStart(4, "0")}`);
      const sent = await send(token, { channels: ["sms"], phones, content: "rate limited" });
      assert.equal(sent.status, 200, JSON.stringify(sent.body));
      const arrivals: number[] = [];
      await waitFor(
        () => {
          for (const phone of phones) {
            if (!arrivals[phones.indexOf(phone)] && twilio.received.some((m) => m.to === phone)) {
              arrivals[phones.indexOf(phone)] = Date.now();
            }
          }
          return phones.every((phone) => twilio.received.some((m) => m.to === phone));
        },
        15_000,
        "all 30 texts",
      );
      const times = arrivals.filter(Boolean).sort((a, b) => a - b);
      assert.ok(
        times.at(-1)! - times[0]! >= 400,
        `30 texts at 20/s spread over ${times.at(-1)! - times[0]!} ms`,
      );
    });
  });
}
