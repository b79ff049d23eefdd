import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { idempotencyKeys, waitUntilAllSent } from "../support/app-channel.ts";
import { waitUntilRelayed } from "../support/outbox.ts";
import { distributedSetup, PlatformProcess, requireRealServices } from "../support/platform-processes.ts";
import { RecordingServer } from "../support/recording-server.ts";
import { issueToken } from "../support/tokens.ts";
import { waitFor } from "../support/wait.ts";

const SECRET = "relay-fault-secret-0123456789abcdefghijkl";
/** Each start writes two events (the process started, the assignee's to-do): a thousand in all. */
const STARTS = 500;
const ASSIGNEES = Array.from({ length: 10 }, (_, i) => `clerk${i}`);

describe("the outbox relay's worker killed (SIGKILL) while it relays, and started again", () => {
  before(requireRealServices);

  it("every event reaches every subscriber; each to-do is announced once; no cursor skips one", async () => {
    const app = await RecordingServer.start(() => ({ status: 200, body: { id: "push" } }));
    const hooks = await RecordingServer.start(() => ({ status: 200, body: {} }));
    try {
      const setup = await distributedSetup(
        {
          tenants: [
            {
              domain: "example.edu",
              name: "Example University",
              workflow: {
                notify: { on: true, channel: "app", application: "relay-app", todo: { text: "{step}" } },
              },
            },
          ],
          applications: [
            {
              id: "relay-app",
              secret: SECRET,
              name: "Relay",
              type: "enterprise",
              tenant: "example.edu",
              scopes: ["sys_start", "send_app_notification", "notifications"],
            },
          ],
          channels: [
            {
              name: "app",
              plugin: "app",
              config: { baseUrl: app.url, token: "t" },
              permittedApplications: ["relay-app"],
            },
          ],
          users: ["olive", ...ASSIGNEES].map((account) => ({
            tenant: "example.edu",
            account,
            name: account,
          })),
          workflows: [
            {
              tenant: "example.edu",
              code: "relay",
              name: "Relay",
              versions: [
                {
                  online: true,
                  definition: {
                    graph: {
                      nodes: [
                        { kind: "start", code: "apply", name: "Apply" },
                        { kind: "end", code: "done" },
                      ],
                      edges: [{ from: "apply", to: "done" }],
                    },
                    events: [{ on: "taskCreated", url: `${hooks.url}/hooks` }],
                  },
                },
              ],
            },
          ],
        },
        {
          CALLBACK_ALLOWED_HOSTS: new URL(hooks.url).host,
          CALLBACK_RETRY_DELAYS_MS: "500,1000",
          // A send the victim had in hand is leased to it for the send timeout, then tried again.
          NOTIFY_SEND_TIMEOUT_MS: "2000",
          NOTIFY_RETRY_DELAYS_MS: "1000,2000,4000",
          NOTIFY_SWEEP_INTERVAL_MS: "500",
          NOTIFY_PENDING_AGE_SECONDS: "2",
        },
      );
      const { sql } = setup;
      const processes: PlatformProcess[] = [];
      try {
        const gateway = await PlatformProcess.gateway(setup.env);
        processes.push(gateway);
        const victim = await PlatformProcess.worker(setup.env, ["--all"]);
        processes.push(victim);
        const token = await issueToken(
          gateway.url,
          { id: "relay-app", secret: SECRET },
          { grant_type: "client_credentials", scope: "sys_start" },
        );
        let started = 0;
        const starter = async (lane: number) => {
          for (let n = lane; n < STARTS; n += 10) {
            const query = new URLSearchParams({
              code: "relay",
              userId: "olive",
              assignTo: ASSIGNEES[n % 10]!,
            });
            const response = await fetch(`${gateway.url}/apis/v2/process?${query}`, {
              method: "PUT",
              headers: { authorization: `Bearer ${token}` },
            });
            const body = (await response.json()) as { errno: number; error: string };
            assert.equal(body.errno, 0, body.error);
            started++;
          }
        };
        const starting = Promise.all(Array.from({ length: 10 }, (_, lane) => starter(lane)));
        // Killed once it has relayed some of the events and before it has the rest.
        await waitFor(
          async () => {
            const [row] = await sql<{ position: number }[]>`
              select coalesce(min(position), 0)::int as position from workflow_outbox_cursors`;
            return row!.position > 0 && started < STARTS * 0.8;
          },
          30_000,
          "the relay under way",
        );
        await victim.kill();
        await starting;
        processes.push(await PlatformProcess.worker(setup.env, ["--all"]));

        const events = await sql<{ id: string; task: string | null; type: string }[]>`
          select id::text, task_id as task, type from workflow_events order by id`;
        assert.equal(events.length, STARTS * 2);
        await waitUntilRelayed(sql, 60_000, "every subscriber past every event");
        const todos = events.filter((event) => event.type === "todo.created");
        assert.equal(todos.length, STARTS);

        // Push: a task message per to-do, for its assignee.
        const pushed = await sql<
          { eid: string }[]
        >`select distinct eid from push_messages where type = 'task'`;
        assert.deepEqual(new Set(pushed.map((row) => row.eid)), new Set(todos.map((event) => event.task)));

        // Notices: one notification per to-do, never two, each delivered.
        const notices = await sql<{ count: number }[]>`select count(*)::int as count from notifications`;
        assert.equal(notices[0]!.count, STARTS, "one notice per to-do");
        await waitUntilAllSent(sql, 60_000, "every notice sent");
        const tasks = await sql<{ id: string }[]>`select id from delivery_tasks`;
        assert.equal(tasks.length, STARTS);
        const received = new Set(idempotencyKeys(app));
        for (const task of tasks)
          assert.ok(received.has(task.id), `notice ${task.id} reached the campus app`);

        // Callbacks: a delivery per to-do, each posted at least once.
        await waitFor(
          async () => {
            const [row] = await sql<{ open: number }[]>`
              select count(*)::int as open from workflow_callback_deliveries where status <> 'delivered'`;
            return row!.open === 0;
          },
          60_000,
          "every callback delivered",
        );
        const deliveries = await sql<{ eventId: string }[]>`
          select event_id::text as "eventId" from workflow_callback_deliveries`;
        assert.deepEqual(
          new Set(deliveries.map((row) => row.eventId)),
          new Set(todos.map((event) => event.id)),
        );
        const posted = new Set(
          hooks.requests.map((request) => String(request.headers["x-platform-event-id"])),
        );
        for (const event of todos) assert.ok(posted.has(event.id), `callback of event ${event.id} posted`);
      } finally {
        await Promise.all(processes.map((process) => process.stop()));
        await setup.cleanup();
      }
    } finally {
      await app.close();
      await hooks.close();
    }
  });
});
