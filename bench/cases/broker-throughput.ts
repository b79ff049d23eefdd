import { randomUUID } from "node:crypto";
import { type ConsumeMessage, connect } from "amqplib";
import { pino } from "pino";
import { RabbitMqBroker } from "../../runtime/broker/rabbitmq-broker.ts";
import { declarationsFor } from "../../runtime/broker/topology.ts";
import { type BenchCase, higherIsBetter } from "../bench-result.ts";
import { AMQP_URL } from "../platform-env.ts";
import { median } from "../statistics.ts";

const MESSAGES = 10_000;
/** Alternating rounds of reference and platform; the median of each is compared. */
const ROUNDS = 5;
/** Publishes awaiting their confirm at once, and the consumer's prefetch, in both runs. */
const WINDOW = 200;
const payload = { data: "x".repeat(1000) };

/** Publishes `count` messages keeping `window` of them unconfirmed at a time. */
async function publishWindowed(count: number, publishOne: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: WINDOW }, async () => {
      while (next < count) await publishOne(next++);
    }),
  );
}

/** Raw amqplib: confirm channel, persistent messages, a quorum queue, manual acks. */
export async function rawAmqplib(): Promise<number> {
  const queue = `bench.raw.${randomUUID().slice(0, 8)}`;
  const connection = await connect(AMQP_URL);
  const publisher = await connection.createConfirmChannel();
  const consumer = await connection.createChannel();
  await publisher.assertQueue(queue, { durable: true, arguments: { "x-queue-type": "quorum" } });
  await consumer.prefetch(WINDOW);
  let received = 0;
  const started = performance.now();
  const done = new Promise<void>((resolve) => {
    void consumer.consume(queue, (message: ConsumeMessage | null) => {
      if (!message) return;
      JSON.parse(message.content.toString());
      consumer.ack(message);
      if (++received === MESSAGES) resolve();
    });
  });
  await publishWindowed(
    MESSAGES,
    () =>
      new Promise<void>((resolve, reject) => {
        const body = Buffer.from(JSON.stringify(payload));
        publisher.publish("", queue, body, { persistent: true, messageId: randomUUID() }, (error) =>
          error ? reject(error) : resolve(),
        );
      }),
  );
  await done;
  const rate = MESSAGES / ((performance.now() - started) / 1000);
  await publisher.deleteQueue(queue);
  await connection.close();
  return rate;
}

/** The same through the platform's broker layer. */
async function platformBroker(): Promise<number> {
  const definition = { name: `bench.platform.${randomUUID().slice(0, 8)}`, retryDelaysMs: [5000] };
  const broker = await RabbitMqBroker.start({ url: AMQP_URL }, pino({ level: "silent" }));
  await broker.declare([definition]);
  let received = 0;
  const started = performance.now();
  const done = new Promise<void>((resolve) => {
    void broker.consume(
      definition.name,
      async () => {
        if (++received === MESSAGES) resolve();
        return { outcome: "done" };
      },
      { concurrency: WINDOW, timeoutMs: 30_000 },
    );
  });
  await publishWindowed(MESSAGES, () => broker.publish(definition.name, payload));
  await done;
  const rate = MESSAGES / ((performance.now() - started) / 1000);
  await broker.close();
  const connection = await connect(AMQP_URL);
  const channel = await connection.createChannel();
  for (const declaration of declarationsFor(definition)) await channel.deleteQueue(declaration.name);
  await connection.close();
  return rate;
}

export const brokerBench: BenchCase = {
  name: "broker",
  description: `confirmed publish + consume + ack of ${MESSAGES} 1 KB jobs on RabbitMQ, ${ROUNDS} rounds each`,
  async run() {
    await rawAmqplib();
    await platformBroker(); // warm the broker and both code paths up
    const reference: number[] = [];
    const value: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      reference.push(await rawAmqplib());
      value.push(await platformBroker());
    }
    return [higherIsBetter("broker.publish-consume-ack", "msg/s", median(value), median(reference), 0.8)];
  },
};
