import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { startTestPlatform, type TestPlatform, testModes, withBootstrap } from "../support/platform.ts";
import { freshVhost } from "../support/rabbit.ts";
import { after, before, describe, it } from "../support/skippable-suites.ts";
import { startSmtp } from "../support/smtp-server.ts";
import { waitFor } from "../support/wait.ts";
import {
  otherTenantApplication,
  PORTAL_REDIRECT,
  portalApplication,
  portalUserTokens,
  sysToken,
  WORKFLOW_PASSWORD,
} from "../support/workflow-fixture.ts";

/**
 * Spec 001 4.9 end to end: a reminder of a to-do task reaches its candidates and their delegates
 * through the notification pipeline (a real SMTP server on the e-mail channel), with an activity;
 * the refusals (no reminder in the tenant's settings, a task not to do, a user token), and workflow
 * refusals in Chinese when the caller asks for it.
 */

const ADMIN_TOKEN = "reminder-admin-token-0123456789abcdefghij";
const SECRET = "reminder-portal-secret-0123456789abcdefgh";
const _REDIRECT = PORTAL_REDIRECT;
const PASSWORD = WORKFLOW_PASSWORD;
const leaveRequest = JSON.parse(
  await readFile(new URL("../../examples/leave-request.workflow.json", import.meta.url), "utf8"),
);

const USER_SCOPES = "start submit process task task_edit entrust entrust_edit";
const SYS_SCOPES = "sys_start sys_submit sys_process sys_task sys_task_edit notifications";

interface Envelope<T = Record<string, unknown>> {
  errno: number;
  ecode: string;
  error: string;
  total: number;
  entities: T[];
}
type Task = { id: string; code: string; status: number };
type Process = { entry: number; tasks: Task[] };
type Reminder = { id: string; channel: string; accounts: string[] };

const users = [
  ["alice", "cs", "lecturer"],
  ["bob", "cs", "lecturer"],
  ["carol", "cs", "head"],
] as const;

for (const mode of await testModes()) {
  describe(`workflow reminders (${mode.name})`, { skip: mode.skip }, () => {
    let platform: TestPlatform;
    let cleanup: () => Promise<void>;
    let smtp: Awaited<ReturnType<typeof startSmtp>>;
    const tokens: Record<string, string> = {};
    let sys: string;
    let otherSys: string;

    async function call<T = Record<string, unknown>>(
      method: string,
      path: string,
      token: string,
      params: Record<string, string> = {},
      options: { base?: string; language?: string } = {},
    ): Promise<{ status: number; body: Envelope<T> }> {
      const query = new URLSearchParams(params).toString();
      const base = options.base ?? "/apis/v2";
      const response = await fetch(`${platform.url}${base}${path}${query ? `?${query}` : ""}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          ...(options.language ? { "accept-language": options.language } : {}),
        },
        signal: AbortSignal.timeout(8000),
      });
      return { status: response.status, body: (await response.json()) as Envelope<T> };
    }

    function deploy(tenant: string) {
      return fetch(`${platform.url}/admin/workflows/${tenant}/leave/versions`, {
        method: "PUT",
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
        body: JSON.stringify({ definition: leaveRequest, online: true, app: { name: "Leave request" } }),
      });
    }

    async function start(token: string, params: Record<string, string> = {}) {
      const started = await call<unknown>("PUT", "/process", token, {
        code: "leave",
        data: JSON.stringify({ days: 2, reason: "a conference" }),
        ...params,
      });
      assert.equal(started.body.errno, 0, started.body.error);
      const [entry, , , task] = started.body.entities as [number, number, string, Task];
      return { entry, task };
    }

    const remind = (id: string, token = sys, options: { base?: string; language?: string } = {}) =>
      call<Reminder>("PUT", `/task/${id}/notification`, token, {}, options);

    before(async () => {
      smtp = await startSmtp();
      const prepared = await mode.prepare();
      // A vhost of its own, so no other suite's worker on the same broker takes the reminder's job.
      const vhost = prepared.env.AMQP_URL ? await freshVhost(prepared.env.AMQP_URL) : undefined;
      cleanup = async () => {
        await prepared.cleanup();
        await vhost?.delete();
      };
      const amqp: Record<string, string> = vhost ? { AMQP_URL: vhost.url } : {};
      const env = await withBootstrap(
        { ...prepared.env, ...amqp },
        {
          tenants: [
            {
              domain: "example.edu",
              name: "Example University",
              workflow: {
                reminder: { channel: "email", text: "Please handle {step} of {process}, No. {entry}." },
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
            portalApplication(SECRET, [
              ...USER_SCOPES.split(" "),
              ...SYS_SCOPES.split(" "),
              "sys_triple_edit",
            ]),
            otherTenantApplication(SECRET, SYS_SCOPES.split(" ")),
          ],
          users: [
            ...users.map(([account]) => ({
              tenant: "example.edu",
              account,
              name: account,
              email: `${account}@example.edu`,
              password: PASSWORD,
            })),
            { tenant: "other.edu", account: "olga", name: "olga", email: "olga@other.edu" },
            // Reachable on no channel: no e-mail address, no phone.
            { tenant: "example.edu", account: "quinn", name: "quinn", password: PASSWORD },
          ],
        },
      );
      platform = await startTestPlatform({ ...env, ADMIN_TOKEN });
      Object.assign(
        tokens,
        await portalUserTokens(
          platform.url,
          SECRET,
          users.map(([account]) => account),
          USER_SCOPES,
        ),
      );
      sys = await sysToken(platform.url, "portal", SECRET, SYS_SCOPES);
      otherSys = await sysToken(platform.url, "other", SECRET, SYS_SCOPES);
      const triples = await sysToken(platform.url, "portal", SECRET, "sys_triple_edit");
      await call("PUT", "/triple/dept", triples, { code: "cs", name: "cs" });
      for (const post of ["lecturer", "head"])
        await call("PUT", "/triple/post", triples, { code: post, name: post });
      for (const [account, dept, post] of users) {
        const granted = await call("PUT", `/position/${dept}:${post}/users`, triples, { code: account });
        assert.equal(granted.body.errno, 0, granted.body.error);
      }
      assert.equal((await deploy("example.edu")).status, 200);
      assert.equal((await deploy("other.edu")).status, 200);
    });

    after(async () => {
      await platform?.stop();
      await cleanup?.();
      await smtp?.close();
    });

    it("e-mails the task's candidate and her delegate, answers the notification, and records the activity", async () => {
      const now = Math.floor(Date.now() / 1000);
      const entrusted = await call("PUT", "/user/carol/entrustees/bob", tokens.carol!, {
        app: "leave",
        from: String(now - 60),
        to: String(now + 3600),
      });
      assert.equal(entrusted.body.errno, 0, entrusted.body.error);
      const { entry, task } = await start(tokens.alice!);
      assert.equal((await call("POST", `/task/${task.id}`, tokens.alice!)).body.errno, 0);
      const view = await call<Process>("GET", `/process/${entry}`, tokens.carol!);
      const department = view.body.entities[0]!.tasks.find((t) => t.code === "department" && t.status === 1)!;

      const reminded = await remind(department.id);
      assert.equal(reminded.status, 200);
      assert.equal(reminded.body.errno, 0, reminded.body.error);
      assert.equal(reminded.body.total, 1);
      const [sent] = reminded.body.entities;
      assert.deepEqual([sent!.channel, sent!.accounts], ["email", ["bob", "carol"]]);

      const text = `Please handle Department approval of Leave request, No. ${entry}.`;
      const mailTo = (address: string) =>
        smtp.mails.find((m) => m.to.includes(address) && m.raw.includes(text));
      await waitFor(
        () => Boolean(mailTo("carol@example.edu") && mailTo("bob@example.edu")),
        10_000,
        "both mails",
      );
      assert.match(mailTo("carol@example.edu")!.raw, /Subject: Leave request: Department approval/);
      assert.ok(!smtp.mails.some((m) => m.to.includes("alice@example.edu") && m.raw.includes(text)));

      // The reminder is the application's notification: its delivery shows in the status API.
      const delivered = async () => {
        const status = await fetch(`${platform.url}/notification/status?id=${sent!.id}`, {
          headers: { authorization: `Bearer ${sys}` },
        });
        const body = (await status.json()) as {
          entities: { tasks: { email: string; sendingStatus: string }[] }[];
        };
        return body.entities[0]!.tasks.map((t) => `${t.email} ${t.sendingStatus}`).sort();
      };
      await waitFor(
        async () => (await delivered()).every((t) => t.endsWith(" sent")),
        10_000,
        "both tasks sent",
      );
      assert.deepEqual(await delivered(), ["bob@example.edu sent", "carol@example.edu sent"]);

      const activities = await call<{ category: string; tags: string; description: string }>(
        "GET",
        `/process/${entry}/activities`,
        sys,
        { categories: "NOTIFICATION" },
      );
      assert.equal(activities.body.errno, 0, activities.body.error);
      assert.deepEqual(
        activities.body.entities.map((a) => [a.category, a.tags, a.description]),
        [["NOTIFICATION", "remind", "reminded bob, carol of Department approval of Leave request on email"]],
      );
      await call("DELETE", "/user/carol/entrustees/bob", tokens.carol!);
    });

    it("refuses a task that is not to do, and records no notification", async () => {
      const { entry, task } = await start(tokens.alice!);
      assert.equal((await call("POST", `/task/${task.id}`, tokens.alice!)).body.errno, 0);
      const refused = await remind(task.id);
      assert.equal(refused.status, 200);
      assert.deepEqual([refused.body.errno, refused.body.ecode], [40901, "TASK_ALREADY_HANDLED"]);
      const activities = await call("GET", `/process/${entry}/activities`, sys, {
        categories: "NOTIFICATION",
      });
      assert.equal(activities.body.total, 0);
    });

    it("refuses a task none of whose handlers has an address on the reminder's channel", async () => {
      const { entry, task } = await start(sys, { userId: "quinn" });
      const refused = await remind(task.id);
      assert.deepEqual(
        [refused.status, refused.body.errno, refused.body.ecode],
        [200, 42213, "NO_RECIPIENT"],
      );
      const activities = await call("GET", `/process/${entry}/activities`, sys, {
        categories: "NOTIFICATION",
      });
      assert.equal(activities.body.total, 0);
    });

    it("refuses when the tenant's settings give no reminder", async () => {
      const { task } = await start(otherSys, { userId: "olga" });
      const refused = await remind(task.id, otherSys);
      assert.equal(refused.status, 200);
      assert.deepEqual([refused.body.errno, refused.body.ecode], [40907, "REMINDER_NOT_CONFIGURED"]);
      assert.match(refused.body.error, /workflow\.reminder/);
      const zh = await remind(task.id, otherSys, { language: "zh-CN" });
      assert.deepEqual([zh.body.errno, zh.body.error], [40907, "租户未配置督办提醒"]);
      assert.ok(!smtp.mails.some((m) => m.to.includes("olga@other.edu")));
    });

    it("refuses a user token, and finds no task of the other data mode or tenant", async () => {
      const { task } = await start(tokens.alice!);
      const user = await remind(task.id, tokens.alice!);
      assert.equal(user.status, 403);
      assert.equal(user.body.ecode, "PERMISSION_DENIED");
      const testData = await remind(task.id, sys, { base: "/apis/v2d" });
      assert.deepEqual([testData.body.errno, testData.body.ecode], [40401, "TASK_NOT_FOUND"]);
      const otherTenant = await remind(task.id, otherSys);
      assert.equal(otherTenant.body.ecode, "TASK_NOT_FOUND");
    });

    it("answers a workflow refusal in Chinese for Accept-Language zh-CN, with the same errno and ecode", async () => {
      const { task } = await start(tokens.alice!);
      assert.equal((await call("POST", `/task/${task.id}`, tokens.alice!)).body.errno, 0);
      const zh = await remind(task.id, sys, { language: "zh-CN,zh;q=0.9,en;q=0.5" });
      assert.deepEqual([zh.status, zh.body.errno, zh.body.ecode], [200, 40901, "TASK_ALREADY_HANDLED"]);
      assert.equal(zh.body.error, "任务已处理或当前不可处理");
      const en = await remind(task.id, sys, { language: "en-GB" });
      assert.deepEqual([en.body.errno, en.body.ecode], [40901, "TASK_ALREADY_HANDLED"]);
      assert.match(en.body.error, new RegExp(`task ${task.id} is not to do`));

      const handledAgain = await call("POST", `/task/${task.id}`, tokens.alice!, {}, { language: "zh" });
      assert.deepEqual(
        [handledAgain.body.ecode, handledAgain.body.error],
        ["TASK_ALREADY_HANDLED", "任务已处理或当前不可处理"],
      );
      const otherTenant = await remind(task.id, otherSys, { language: "zh-CN" });
      assert.deepEqual([otherTenant.body.errno, otherTenant.body.error], [40401, "任务不存在"]);
    });
  });
}
