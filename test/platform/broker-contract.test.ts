import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { connect as amqpConnect } from "amqplib";
import type { Broker, DeliveryContext, HandlerOutcome, QueueDefinition } from "../../contracts/broker.ts";
import { ErrorCode, PlatformError } from "../../contracts/errors.ts";
import { EmbeddedBroker } from "../../runtime/broker/embedded-broker.ts";
import { RabbitMqBroker } from "../../runtime/broker/rabbitmq-broker.ts";
import { declarationsFor } from "../../runtime/broker/topology.ts";
import { closeRabbitConnection, TcpProxy } from "../support/rabbit.ts";
import { realServices, realServicesSkip } from "../support/services.ts";
import { after, before, describe, it } from "../support/skippable-suites.ts";
import { silentLogger, waitFor, waitForDeadLetters } from "../support/wait.ts";

const services = await realServices();

interface Subject {
  name: string;
  skip: false | string;
  start(connectionName: string): Promise<Broker>;
  url?: string;
}

const subjects: Subject[] = [
  { name: "embedded", skip: false, start: async () => new EmbeddedBroker(silentLogger) },
  {
    name: "rabbitmq",
    skip: await realServicesSkip(),
    url: services?.amqpUrl,
    start: (connectionName) =>
      RabbitMqBroker.start({ url: services!.amqpUrl, connectionName, confirmTimeoutMs: 3000 }, silentLogger),
  },
];

const runId = randomUUID().slice(0, 8);
let queueCounter = 0;
const declaredQueues: QueueDefinition[] = [];

function queue(retryDelaysMs: number[] = []): QueueDefinition {
  const definition = { name: `test.${runId}.q${++queueCounter}`, retryDelaysMs };
  declaredQueues.push(definition);
  return definition;
}

/** Records each delivery a handler sees, with its time. */
function recorder(
  decide: (message: unknown, context: DeliveryContext) => HandlerOutcome | Promise<HandlerOutcome>,
) {
  const seen: { message: unknown; context: DeliveryContext; at: number }[] = [];
  const handler = async (message: unknown, context: DeliveryContext) => {
    seen.push({ message, context, at: Date.now() });
    return decide(message, context);
  };
  return { seen, handler };
}

for (const subject of subjects) {
  describe(`broker contract: ${subject.name}`, { skip: subject.skip }, () => {
    let broker: Broker;

    before(async () => {
      broker = await subject.start(`test-${runId}-${subject.name}`);
    });

    after(async () => {
      await broker.close();
    });

    it("confirms a publish and delivers it once to a consumer that acks", async () => {
      const q = queue();
      await broker.declare([q]);
      const { seen, handler } = recorder(() => ({ outcome: "done" }));
      await broker.consume(q.name, handler, { concurrency: 4, timeoutMs: 5000 });
      await broker.publish(q.name, { hello: "world", n: 1 }, { messageId: "m-1" });
      await waitFor(() => seen.length === 1);
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.equal(seen.length, 1, "an acked message is not delivered again");
      assert.deepEqual(seen[0]!.message, { hello: "world", n: 1 });
      assert.equal(seen[0]!.context.messageId, "m-1");
      assert.equal(seen[0]!.context.attempt, 1);
      assert.equal(seen[0]!.context.maxAttempts, 1);
      assert.deepEqual(await broker.takeDeadLetters(q.name, 10), []);
    });

    it("refuses to publish to a queue that was not declared", async () => {
      await assert.rejects(broker.publish(`test.${runId}.missing`, {}), (error: unknown) => {
        assert.ok(error instanceof PlatformError);
        assert.match(error.message, /not declared/);
        return true;
      });
    });

    it("retries with the growing delays of the queue, counting attempts", async () => {
      const q = queue([150, 300]);
      await broker.declare([q]);
      const { seen, handler } = recorder((_m, context) =>
        context.attempt < 3 ? { outcome: "retry", reason: "upstream busy" } : { outcome: "done" },
      );
      await broker.consume(q.name, handler, { concurrency: 1, timeoutMs: 5000 });
      await broker.publish(q.name, { job: "retry-me" });
      await waitFor(() => seen.length === 3, 10_000);
      assert.deepEqual(
        seen.map((s) => s.context.attempt),
        [1, 2, 3],
      );
      assert.ok(seen.every((s) => s.context.maxAttempts === 3));
      const firstGap = seen[1]!.at - seen[0]!.at;
      const secondGap = seen[2]!.at - seen[1]!.at;
      assert.ok(firstGap >= 140, `first retry waited ${firstGap} ms, expected about 150`);
      assert.ok(secondGap >= 290, `second retry waited ${secondGap} ms, expected about 300`);
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.equal(seen.length, 3);
      assert.deepEqual(await broker.takeDeadLetters(q.name, 10), []);
    });

    it("dead-letters a message after its last attempt, keeping the reason", async () => {
      const q = queue([50, 50]);
      await broker.declare([q]);
      const { seen, handler } = recorder(() => ({ outcome: "retry", reason: "smtp 451 try later" }));
      await broker.consume(q.name, handler, { concurrency: 1, timeoutMs: 5000 });
      await broker.publish(q.name, { job: "doomed" }, { messageId: "doomed-1" });
      await waitFor(() => seen.length === 3, 10_000);
      const letters = await waitForDeadLetters(broker, q.name, 1);
      assert.equal(letters.length, 1);
      assert.equal(letters[0]!.messageId, "doomed-1");
      assert.deepEqual(letters[0]!.message, { job: "doomed" });
      assert.equal(letters[0]!.attempts, 3);
      assert.match(letters[0]!.reason, /smtp 451 try later/);
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.equal(seen.length, 3, "no attempt after the last");
    });

    it("dead-letters at once when the handler says the failure is final", async () => {
      const q = queue([50, 50]);
      await broker.declare([q]);
      const { seen, handler } = recorder(() => ({ outcome: "fail", reason: "recipient does not exist" }));
      await broker.consume(q.name, handler, { concurrency: 1, timeoutMs: 5000 });
      await broker.publish(q.name, { job: "final" });
      const letters = await waitForDeadLetters(broker, q.name, 1);
      assert.equal(seen.length, 1);
      assert.equal(letters[0]!.attempts, 1);
      assert.equal(letters[0]!.reason, "recipient does not exist");
    });

    it("acknowledges a refused job, answering its caller with the error, and dead-letters nothing", async () => {
      const q = queue([50, 50]);
      await broker.declare([q]);
      const { seen, handler } = recorder(() => ({
        outcome: "refused",
        reason: "not a PDF",
        code: ErrorCode.Unprocessable,
      }));
      await broker.consume(q.name, handler, { concurrency: 1, timeoutMs: 5000 });
      await assert.rejects(
        broker.request(q.name, { job: "refused" }, { timeoutMs: 5000 }),
        (error: unknown) => {
          assert.ok(error instanceof PlatformError);
          assert.equal(error.code, ErrorCode.Unprocessable);
          assert.equal(error.message, "not a PDF");
          return true;
        },
      );
      await broker.publish(q.name, { job: "refused without a caller" });
      await waitFor(() => seen.length === 2);
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(seen.length, 2, "never tried again");
      assert.deepEqual(await broker.takeDeadLetters(q.name, 10), []);
      assert.equal((await broker.queueStats()).find((stats) => stats.queue === q.name)?.ready, 0);
    });

    it("lists dead letters in place, replays one or the rest as new jobs, and purges", async () => {
      const q = queue();
      await broker.declare([q]);
      let healthy = false;
      const { seen, handler } = recorder(() =>
        healthy ? { outcome: "done" } : { outcome: "fail", reason: "the provider is broken" },
      );
      await broker.consume(q.name, handler, { concurrency: 1, timeoutMs: 5000 });
      for (const n of [1, 2, 3, 4]) await broker.publish(q.name, { n }, { messageId: `letter-${n}` });
      await waitFor(async () => (await broker.peekDeadLetters(q.name, 10)).length === 4);
      const listed = await broker.peekDeadLetters(q.name, 10);
      assert.deepEqual(
        listed.map((letter) => [letter.messageId, letter.message, letter.reason]),
        [1, 2, 3, 4].map((n) => [`letter-${n}`, { n }, "the provider is broken"]),
      );
      assert.deepEqual(await broker.peekDeadLetters(q.name, 10), listed, "listing takes nothing away");
      assert.deepEqual(await broker.peekDeadLetters(q.name, 2), listed.slice(0, 2));

      healthy = true;
      assert.equal(await broker.replayDeadLetters(q.name, { messageId: "letter-3", limit: 1 }), 1);
      await waitFor(() => seen.some((delivery) => delivery.context.messageId === "letter-3" && healthy));
      const replayed = seen.at(-1)!;
      assert.deepEqual(replayed.message, { n: 3 });
      assert.equal(replayed.context.attempt, 1, "a replay is a new first attempt");
      assert.deepEqual(
        (await broker.peekDeadLetters(q.name, 10)).map((letter) => letter.messageId),
        ["letter-1", "letter-2", "letter-4"],
      );
      assert.equal(await broker.replayDeadLetters(q.name, { messageId: "no-such-letter", limit: 1 }), 0);
      assert.equal(await broker.replayDeadLetters(q.name, { limit: 1 }), 1, "the oldest");
      await waitFor(() => seen.length === 6);
      assert.deepEqual(seen.at(-1)!.message, { n: 1 });

      assert.equal(await broker.purgeDeadLetters(q.name), 2);
      assert.deepEqual(await broker.peekDeadLetters(q.name, 10), []);
      assert.equal((await broker.queueStats()).find((stats) => stats.queue === q.name)?.dead, 0);
    });

    it("counts a handler that throws or overruns its timeout as a retry", async () => {
      const q = queue([50]);
      await broker.declare([q]);
      const { seen, handler } = recorder(async (_m, context) => {
        if (context.attempt === 1) throw new Error("socket hang up");
        await new Promise((resolve) => setTimeout(resolve, 1000));
        return { outcome: "done" };
      });
      await broker.consume(q.name, handler, { concurrency: 1, timeoutMs: 300 });
      await broker.publish(q.name, { job: "slow" });
      const letters = await waitForDeadLetters(broker, q.name, 1);
      assert.equal(seen.length, 2);
      assert.match(letters[0]!.reason, /timed out after 300 ms/);
      assert.equal(seen[1]!.context.signal.aborted, true, "the overrunning handler's signal is aborted");
    });

    it("hands a message held by a consumer that dies without acking to another consumer", async () => {
      const q = queue();
      await broker.declare([q]);
      const stuck = recorder(() => new Promise<HandlerOutcome>(() => {}));
      const first = await broker.consume(q.name, stuck.handler, { concurrency: 1, timeoutMs: 60_000 });
      await broker.publish(q.name, { job: "survive" }, { messageId: "survivor" });
      await waitFor(() => stuck.seen.length === 1);
      await first.stop(0);
      const healthy = recorder(() => ({ outcome: "done" }));
      await broker.consume(q.name, healthy.handler, { concurrency: 1, timeoutMs: 5000 });
      await waitFor(() => healthy.seen.length === 1);
      assert.equal(healthy.seen[0]!.context.messageId, "survivor");
      assert.equal(healthy.seen[0]!.context.redelivered, true);
      assert.equal(healthy.seen[0]!.context.attempt, 1, "a redelivery is not a retry");
    });

    it("drains jobs in hand when a consumer stops gracefully", async () => {
      const q = queue();
      await broker.declare([q]);
      const finished: unknown[] = [];
      const consumer = await broker.consume(
        q.name,
        async (message) => {
          await new Promise((resolve) => setTimeout(resolve, 300));
          finished.push(message);
          return { outcome: "done" };
        },
        { concurrency: 2, timeoutMs: 5000 },
      );
      await broker.publish(q.name, { n: 1 });
      await broker.publish(q.name, { n: 2 });
      await new Promise((resolve) => setTimeout(resolve, 100));
      await consumer.stop(5000);
      assert.equal(finished.length, 2);
    });

    it("broadcasts a notice to every listener of its topic, and to none of another or stopped", async () => {
      const topic = `test.${runId}.${subject.name}.notices`;
      const heard: Record<string, unknown[]> = { first: [], second: [], other: [] };
      const stopFirst = await broker.listen(topic, (notice) => heard.first!.push(notice));
      const stopSecond = await broker.listen(topic, (notice) => heard.second!.push(notice));
      const stopOther = await broker.listen(`${topic}.other`, (notice) => heard.other!.push(notice));
      try {
        await broker.broadcast(topic, { user: "u-1", time: 1 });
        await waitFor(() => heard.first!.length === 1 && heard.second!.length === 1, 5000, "both listeners");
        assert.deepEqual(heard.first, [{ user: "u-1", time: 1 }]);
        assert.deepEqual(heard.second, [{ user: "u-1", time: 1 }]);
        await stopFirst();
        await broker.broadcast(`${topic}.other`, { other: true });
        await broker.broadcast(topic, { user: "u-1", time: 2 });
        await waitFor(
          () => heard.second!.length === 2 && heard.other!.length === 1,
          5000,
          "the second notice",
        );
        assert.equal(heard.first!.length, 1, "a stopped listener hears nothing more");
        assert.deepEqual(heard.other, [{ other: true }], "another topic's listener hears only its own");
      } finally {
        await stopSecond();
        await stopOther();
      }
    });

    it("answers a request with the handler's reply", async () => {
      const q = queue();
      await broker.declare([q]);
      await broker.consume(
        q.name,
        async (message) => {
          const { a, b } = message as { a: number; b: number };
          if (b === 0)
            return { outcome: "fail", reason: "division by zero", code: ErrorCode.InvalidArgument };
          return { outcome: "done", reply: { quotient: a / b } };
        },
        { concurrency: 2, timeoutMs: 5000 },
      );
      assert.deepEqual(await broker.request(q.name, { a: 6, b: 3 }, { timeoutMs: 3000 }), { quotient: 2 });
      await assert.rejects(broker.request(q.name, { a: 1, b: 0 }, { timeoutMs: 3000 }), (error: unknown) => {
        assert.ok(error instanceof PlatformError);
        assert.equal(error.code, ErrorCode.InvalidArgument);
        assert.equal(error.message, "division by zero");
        return true;
      });
    });

    it("fails a request when no worker answers within the deadline", async () => {
      const q = queue();
      await broker.declare([q]);
      const started = Date.now();
      await assert.rejects(broker.request(q.name, { ping: true }, { timeoutMs: 400 }), (error: unknown) => {
        assert.ok(error instanceof PlatformError);
        assert.equal(error.code, ErrorCode.DeadlineExceeded);
        return true;
      });
      const waited = Date.now() - started;
      assert.ok(waited >= 390 && waited < 2000, `waited ${waited} ms for a 400 ms deadline`);
      // A worker that arrives after the deadline does not do the abandoned work.
      const late = recorder(() => ({ outcome: "done" }));
      await broker.consume(q.name, late.handler, { concurrency: 1, timeoutMs: 5000 });
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(late.seen.length, 0);
    });
  });
}

describe("broker contract: rabbitmq connection faults", {
  skip: services ? false : "RabbitMQ unreachable",
}, () => {
  it("re-declares its topology and resumes consuming after the broker closes the connection", async () => {
    const connectionName = `test-${runId}-reconnect`;
    const broker = await RabbitMqBroker.start({ url: services!.amqpUrl, connectionName }, silentLogger);
    try {
      const q = queue();
      await broker.declare([q]);
      const { seen, handler } = recorder(() => ({ outcome: "done" }));
      await broker.consume(q.name, handler, { concurrency: 1, timeoutMs: 5000 });
      await broker.publish(q.name, { n: 1 });
      await waitFor(() => seen.length === 1);

      await closeRabbitConnection(connectionName);
      await waitFor(() => !broker.isConnected(), 5000);
      await broker.waitUntilConnected(10_000);
      await broker.publish(q.name, { n: 2 });
      await waitFor(() => seen.length === 2, 5000);
      assert.deepEqual(seen[1]!.message, { n: 2 });
    } finally {
      await broker.close();
    }
  });

  it("broadcasts to listeners of every connection, and listens again after a reconnect", async () => {
    const connectionName = `test-${runId}-notices`;
    const topic = `test.${runId}.reconnect.notices`;
    const listening = await RabbitMqBroker.start({ url: services!.amqpUrl, connectionName }, silentLogger);
    const speaking = await RabbitMqBroker.start({ url: services!.amqpUrl }, silentLogger);
    try {
      const heard: unknown[] = [];
      await listening.listen(topic, (notice) => heard.push(notice));
      await speaking.broadcast(topic, { n: 1 });
      await waitFor(() => heard.length === 1, 5000, "the notice of another connection");

      await closeRabbitConnection(connectionName);
      await waitFor(() => !listening.isConnected(), 5000);
      await listening.waitUntilConnected(10_000);
      // The new queue is bound once the listener is attached again, just after the reconnect.
      await waitFor(
        async () => {
          await speaking.broadcast(topic, { n: 2 });
          return heard.some((notice) => (notice as { n: number }).n === 2);
        },
        5000,
        "a notice after the reconnect",
      );
      assert.deepEqual(heard[0], { n: 1 });
    } finally {
      await listening.close();
      await speaking.close();
    }
  });

  it("fails a publish at once while the broker is unreachable, buffering nothing, and recovers", async () => {
    const proxy = await TcpProxy.start(new URL(services!.amqpUrl));
    const url = new URL(services!.amqpUrl);
    url.port = String(proxy.port);
    const broker = await RabbitMqBroker.start(
      { url: url.toString(), maxReconnectDelayMs: 500 },
      silentLogger,
    );
    try {
      const q = queue();
      await broker.declare([q]);
      const { seen, handler } = recorder(() => ({ outcome: "done" }));
      await broker.consume(q.name, handler, { concurrency: 1, timeoutMs: 5000 });

      proxy.cut();
      await waitFor(() => !broker.isConnected(), 5000);
      const started = Date.now();
      await assert.rejects(broker.publish(q.name, { lost: true }), (error: unknown) => {
        assert.ok(error instanceof PlatformError);
        assert.equal(error.code, ErrorCode.Unavailable);
        return true;
      });
      assert.ok(Date.now() - started < 100, "the publish failed fast");

      proxy.restore();
      await broker.waitUntilConnected(10_000);
      await broker.publish(q.name, { after: true });
      await waitFor(() => seen.length === 1, 5000);
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.deepEqual(
        seen.map((s) => s.message),
        [{ after: true }],
        "the refused publish was not sent later",
      );
    } finally {
      await broker.close();
      await proxy.close();
    }
  });
});

after(async () => {
  if (!services) return;
  const connection = await amqpConnect(services.amqpUrl);
  const channel = await connection.createChannel();
  for (const definition of declaredQueues) {
    for (const declaration of declarationsFor(definition)) await channel.deleteQueue(declaration.name);
  }
  await connection.close();
});
