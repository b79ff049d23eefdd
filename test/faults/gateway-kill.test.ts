import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { before, describe, it } from "node:test";
import { appChannelBootstrap, idempotencyKeys, waitUntilAllSent } from "../support/app-channel.ts";
import { distributedSetup, PlatformProcess, requireRealServices } from "../support/platform-processes.ts";
import { TcpProxy } from "../support/rabbit.ts";
import { RecordingServer } from "../support/recording-server.ts";
import { issueToken } from "../support/tokens.ts";
import { waitFor } from "../support/wait.ts";

const SECRET = "kill-app-secret-0123456789abcdefghijklmno";
const RECIPIENTS = 30;

describe("the gateway killed between the database commit and the publish of a notification", () => {
  before(requireRealServices);

  it("the sweeper publishes the jobs it never sent: every recipient gets the message once, and a retry by id changes nothing", async () => {
    const app = await RecordingServer.start(() => ({ status: 200, body: { id: "push" } }));
    const setup = await distributedSetup(
      appChannelBootstrap({ id: "kill-app", secret: SECRET, name: "Kill" }, app.url),
      {
        NOTIFY_SWEEP_INTERVAL_MS: "500",
        NOTIFY_PENDING_AGE_SECONDS: "2",
        PUBLIC_URL: "https://open.example.edu",
      },
    );
    // The gateway reaches RabbitMQ through a relay the test can hold, so its publish never arrives.
    const amqp = new URL(setup.env.AMQP_URL!);
    const proxy = await TcpProxy.start(amqp);
    const relayed = new URL(amqp);
    relayed.port = String(proxy.port);
    const gateway = await PlatformProcess.gateway({ ...setup.env, AMQP_URL: relayed.toString() });
    const worker = await PlatformProcess.worker(setup.env, ["notify.app"]);
    let replacement: PlatformProcess | undefined;
    try {
      const token = await issueToken(
        gateway.url,
        { id: "kill-app", secret: SECRET },
        { grant_type: "client_credentials", scope: "send_app_notification" },
      );
      const id = randomUUID();
      const body = JSON.stringify({
        id,
        channels: ["app"],
        accounts: Array.from({ length: RECIPIENTS }, (_, i) => `student-${i}`),
        name: "Exam room changed",
      });
      const send = (url: string) =>
        fetch(`${url}/v1/notification?access_token=${token}`, {
          method: "PUT",
          headers: { "content-type": "application/json" },
          body,
        });

      proxy.hold();
      const unanswered = send(gateway.url).then(
        (response) => `answered ${response.status}`,
        () => "no answer",
      );
      await waitFor(
        async () => (await setup.sql`select 1 from notifications where id = ${id}`).length === 1,
        10_000,
        "the notification committed",
      );
      await gateway.kill();
      assert.equal(await unanswered, "no answer", "the gateway died before answering");
      assert.equal(app.requests.length, 0, "nothing was published before the kill");

      await waitUntilAllSent(setup.sql, 30_000, "every task sent by way of the sweeper");
      const tasks = await setup.sql<
        { id: string }[]
      >`select id from delivery_tasks where notification_id = ${id}`;
      assert.equal(tasks.length, RECIPIENTS);
      const keys = idempotencyKeys(app);
      assert.deepEqual([...keys].sort(), tasks.map((task) => task.id).sort(), "each recipient once");

      // The client, never answered, sends again with its id: the same notification, nothing new sent.
      replacement = await PlatformProcess.gateway(setup.env);
      const retried = await send(replacement.url);
      assert.equal(retried.status, 200);
      const answer = (await retried.json()) as { errno: number; entities: { id: string }[] };
      assert.equal(answer.errno, 0);
      assert.equal(answer.entities[0]!.id, id);
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const [count] = await setup.sql<{ tasks: number }[]>`select count(*)::int as tasks from delivery_tasks`;
      assert.equal(count!.tasks, RECIPIENTS);
      assert.equal(app.requests.length, RECIPIENTS);
    } finally {
      await replacement?.stop();
      await gateway.kill();
      await worker.stop();
      await proxy.close();
      await setup.cleanup();
      await app.close();
    }
  });
});
