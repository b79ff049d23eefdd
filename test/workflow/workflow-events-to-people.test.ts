import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { type SubscribeResult, subscribed, within } from "../push/push-support.ts";
import { startTestPlatform, type TestPlatform, testModes, withBootstrap } from "../support/platform.ts";
import { freshVhost } from "../support/rabbit.ts";
import { after, before, describe, it } from "../support/skippable-suites.ts";
import { startSmtp } from "../support/smtp-server.ts";
import { waitFor } from "../support/wait.ts";
import { WorkflowClient } from "../support/workflow-client.ts";
import {
  otherTenantApplication,
  PORTAL_REDIRECT,
  portalApplication,
  portalUserTokens,
  sysToken,
  WORKFLOW_PASSWORD,
} from "../support/workflow-fixture.ts";

/**
 * The engine's events reaching people, end to end, through the relay: push messages answer the
 * held polls of whoever got a to-do (`task`) or a copy (`cc`); with `workflow.notify`, the same
 * people are e-mailed (a real SMTP server) once, through the notification pipeline, with a
 * NOTIFICATION activity; a tenant without the setting e-mails nobody.
 */

const ADMIN_TOKEN = "notify-admin-token-0123456789abcdefghijkl";
const SECRET = "notify-portal-secret-0123456789abcdefghij";
const leaveRequest = JSON.parse(
  await readFile(new URL("../../examples/leave-request.workflow.json", import.meta.url), "utf8"),
);
const OTHER_REDIRECT = "https://portal.other.edu/callback";
const USER_SCOPES = "start submit process task";
const SYS_SCOPES = "sys_start sys_submit sys_process sys_task sys_triple_edit notifications";

/** [tenant, account, department, post] */
const people = [
  ["example.edu", "alice", "cs", "lecturer"],
  ["example.edu", "carol", "cs", "head"],
  ["example.edu", "erin", "hr", "clerk"],
  ["other.edu", "olga", "cs", "lecturer"],
  ["other.edu", "oscar", "cs", "head"],
] as const;

type Task = { id: string; code: string; status: number };

for (const mode of await testModes()) {
  describe(`the engine's events reaching people (${mode.name})`, { skip: mode.skip }, () => {
    let platform: TestPlatform;
    let cleanup: (() => Promise<void>) | undefined;
    let smtp: Awaited<ReturnType<typeof startSmtp>> | undefined;
    const tokens: Record<string, string> = {};
    const api = new WorkflowClient(() => platform.url, ADMIN_TOKEN);

    /** Starts a leave request as `account` and submits its form: the department's head gets the to-do. */
    async function applyForLeave(account: string, base = "/apis/v2") {
      const started = await api.ok<unknown>(
        "PUT",
        "/process",
        tokens[account]!,
        { code: "leave", data: JSON.stringify({ days: 2, reason: "a conference" }) },
        base,
      );
      const [entry, , , task] = started.entities as [number, number, string, Task];
      await api.ok("POST", `/task/${task.id}`, tokens[account]!, {}, base);
      return entry;
    }

    /** Whether the relay has offered every subscriber every event written so far. */
    async function relayCaughtUp(): Promise<boolean> {
      const response = await fetch(`${platform.url}/admin/workflows/outbox`, {
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      });
      const lag = (await response.json()) as {
        unsequenced: number;
        subscribers: { subscriber: string; eventsBehind: number }[];
      };
      return (
        lag.unsequenced === 0 &&
        lag.subscribers.length > 0 &&
        lag.subscribers.every((subscriber) => subscriber.eventsBehind === 0)
      );
    }

    const mailsTo = (address: string, text: string) =>
      smtp!.mails.filter((mail) => mail.to.includes(address) && mail.raw.includes(text));

    before(async () => {
      smtp = await startSmtp();
      const prepared = await mode.prepare();
      const vhost = prepared.env.AMQP_URL ? await freshVhost(prepared.env.AMQP_URL) : undefined;
      cleanup = async () => {
        await prepared.cleanup();
        await vhost?.delete();
      };
      const env = await withBootstrap(
        { ...prepared.env, ...(vhost ? { AMQP_URL: vhost.url } : {}) },
        {
          tenants: [
            {
              domain: "example.edu",
              name: "Example University",
              workflow: {
                notify: {
                  on: true,
                  channel: "email",
                  application: "portal",
                  todo: { title: "To do: {step}", text: "{step} of {process} No. {entry} is yours to do." },
                  cc: { text: "You were copied on {process} No. {entry}." },
                },
              },
            },
            { domain: "other.edu", name: "Other College" },
          ],
          channels: [
            {
              name: "email",
              plugin: "email",
              config: { host: "127.0.0.1", port: smtp.port, from: "noreply@example.edu" },
            },
          ],
          applications: [
            portalApplication(SECRET, [...USER_SCOPES.split(" "), ...SYS_SCOPES.split(" ")]),
            {
              ...otherTenantApplication(SECRET, [...USER_SCOPES.split(" "), ...SYS_SCOPES.split(" ")]),
              redirectUris: [OTHER_REDIRECT],
            },
          ],
          users: people.map(([tenant, account]) => ({
            tenant,
            account,
            name: account,
            email: `${account}@${tenant}`,
            password: WORKFLOW_PASSWORD,
          })),
        },
      );
      platform = await startTestPlatform({ ...env, ADMIN_TOKEN, PUSH_HOLD_MS: "5000" });
      for (const [tenant, app] of [
        ["example.edu", "portal"],
        ["other.edu", "other"],
      ] as const) {
        const accounts = people.filter(([t]) => t === tenant).map(([, account]) => account);
        Object.assign(
          tokens,
          await portalUserTokens(platform.url, SECRET, accounts, USER_SCOPES, {
            id: app,
            redirectUri: app === "portal" ? PORTAL_REDIRECT : OTHER_REDIRECT,
          }),
        );
        const triples = await sysToken(platform.url, app, SECRET, "sys_triple_edit");
        for (const [t, account, dept, post] of people) {
          if (t !== tenant) continue;
          await api.call("PUT", "/triple/dept", triples, { code: dept, name: dept });
          await api.call("PUT", "/triple/post", triples, { code: post, name: post });
          await api.ok("PUT", `/position/${dept}:${post}/users`, triples, { code: account });
        }
        const deployed = await api.deploy(tenant, "leave", {
          definition: leaveRequest,
          online: true,
          app: { name: "Leave request" },
        });
        assert.equal(deployed.status, 200);
      }
    });

    after(async () => {
      await platform?.stop();
      await cleanup?.();
      await smtp?.close();
    });

    it("tells the head of a new to-do once, the applicant of the copy, and records both", async () => {
      const entry = await applyForLeave("alice");
      const todoText = `Department approval of Leave request No. ${entry} is yours to do.`;
      await waitFor(() => mailsTo("carol@example.edu", todoText).length > 0, 15_000, "carol's notice");
      assert.match(mailsTo("carol@example.edu", todoText)[0]!.raw, /Subject: To do: Department approval/);

      const todo = await api.ok<Task>("GET", "/me/tasks/todo", tokens.carol!);
      await api.ok("POST", `/task/${todo.entities[0]!.id}?actionCode=approve`, tokens.carol!);
      const ccText = `You were copied on Leave request No. ${entry}.`;
      await waitFor(() => mailsTo("alice@example.edu", ccText).length > 0, 15_000, "alice's copy notice");
      await waitFor(
        () => mailsTo("erin@example.edu", `No. ${entry} is yours to do.`).length > 0,
        15_000,
        "erin's notice",
      );

      await waitFor(relayCaughtUp, 15_000, "the relay caught up");
      assert.equal(mailsTo("carol@example.edu", todoText).length, 1, "one notice, not two");
      assert.equal(mailsTo("alice@example.edu", ccText).length, 1);
      // Her own form, the moment she started, is announced to nobody.
      assert.equal(mailsTo("alice@example.edu", "Application").length, 0);

      const sys = await sysToken(platform.url, "portal", SECRET, "sys_process");
      const activities = await api.ok<{ category: string; tags: string; description: string }>(
        "GET",
        `/process/${entry}/activities`,
        sys,
        { categories: "NOTIFICATION" },
      );
      assert.deepEqual(activities.entities.map((activity) => [activity.tags, activity.description]).sort(), [
        ["NOTIFY_CC", "copy notice sent on email to alice"],
        ["NOTIFY_TASK", "new to-do notice sent on email to carol"],
        ["NOTIFY_TASK", "new to-do notice sent on email to erin"],
      ]);
    });

    it("answers the held polls of whoever gets a to-do or a copy with a task or cc message", async () => {
      await waitFor(relayCaughtUp, 15_000, "earlier events relayed");
      const since = String(Date.now());
      const held = () => platform.running.push!.size;
      /** A poll of `account`'s messages of type `tid` after `since`, held once this resolves. */
      const holdPoll = async (account: string, tid: string) => {
        const before = held();
        const answer = subscribed(platform.url, tokens[account]!, {
          uid: `${account}@example.edu`,
          tid,
          since,
        });
        await waitFor(() => held() > before, 5000, `${account}'s poll held`);
        return { answer };
      };
      const messagesOf = (answer: SubscribeResult) =>
        answer.messages.map((message) => [message.type, message.eid]);

      const alicePoll = await holdPoll("alice", "task");
      const started = await api.ok<unknown>("PUT", "/process", tokens.alice!, {
        code: "leave",
        data: JSON.stringify({ days: 1, reason: "a move" }),
      });
      const form = started.entities[3] as Task & { process: { id: string } };
      assert.deepEqual(messagesOf(await within(alicePoll.answer, 1000, "alice's poll")), [["task", form.id]]);

      const carolPoll = await holdPoll("carol", "task");
      await api.ok("POST", `/task/${form.id}`, tokens.alice!);
      const [department] = (await api.ok<Task>("GET", "/me/tasks/todo", tokens.carol!)).entities;
      assert.deepEqual(messagesOf(await within(carolPoll.answer, 1000, "carol's poll")), [
        ["task", department!.id],
      ]);

      const copyPoll = await holdPoll("alice", "cc");
      await api.ok("POST", `/task/${department!.id}?actionCode=approve`, tokens.carol!);
      assert.deepEqual(messagesOf(await within(copyPoll.answer, 1000, "alice's copy poll")), [
        ["cc", form.process.id],
      ]);
    });

    it("notifies nobody of a tenant without workflow.notify", async () => {
      const entry = await applyForLeave("olga");
      // The to-do exists, so its event was written; once the relay has passed it, no mail came.
      await api.ok<Task>("GET", "/me/tasks/todo", tokens.oscar!);
      await waitFor(relayCaughtUp, 15_000, "the relay caught up");
      assert.equal(
        smtp!.mails.filter((mail) => mail.to.some((to) => to.endsWith("@other.edu"))).length,
        0,
        `no notice for No. ${entry}`,
      );
    });
  });
}
