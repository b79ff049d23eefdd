import { connect } from "node:net";

/** Addresses of the real services the distributed mode runs on. */
export interface RealServices {
  databaseUrl: string;
  amqpUrl: string;
}

const DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/postgres";
const DEFAULT_AMQP_URL = "amqp://guest:guest@127.0.0.1:5672";

function reachable(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname, port: Number(port) }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.setTimeout(1000, () => {
      socket.destroy();
      resolve(false);
    });
    socket.on("error", () => resolve(false));
  });
}

let cached: Promise<RealServices | undefined> | undefined;
let unreachable = "";

/**
 * The real Postgres and RabbitMQ, from DATABASE_URL and AMQP_URL or their local defaults. Undefined
 * when they cannot be reached on a developer's machine; under CI they must be there.
 */
export function realServices(): Promise<RealServices | undefined> {
  cached ??= (async () => {
    const databaseUrl = process.env.DATABASE_URL || DEFAULT_DATABASE_URL;
    const amqpUrl = process.env.AMQP_URL || DEFAULT_AMQP_URL;
    const [db, mq] = await Promise.all([reachable(databaseUrl), reachable(amqpUrl)]);
    if (db && mq) return { databaseUrl, amqpUrl };
    const missing = [!db && `Postgres at ${databaseUrl}`, !mq && `RabbitMQ at ${amqpUrl}`].filter(Boolean);
    unreachable = `${missing.join(" and ")} unreachable`;
    if (process.env.CI === "true")
      throw new Error(`CI needs the real services: ${missing.join(", ")} unreachable`);
    return undefined;
  })();
  return cached;
}

/** Why the distributed tests are skipped (`false` when the real services answer), for `{ skip }`. */
export async function realServicesSkip(): Promise<false | string> {
  return (await realServices()) ? false : unreachable;
}
