import { execFile } from "node:child_process";
import { promisify } from "node:util";

const run = promisify(execFile);

/**
 * A RabbitMQ virtual host of its own, so a benchmark's queues (named as in production) never
 * share messages with another suite running against the same broker; deleted with its queues.
 */
export async function freshVhost(amqpUrl: string): Promise<{ url: string; delete(): Promise<void> }> {
  const name = `op_bench_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  await run("rabbitmqctl", ["-q", "add_vhost", name]);
  const url = new URL(amqpUrl);
  await run("rabbitmqctl", ["-q", "set_permissions", "-p", name, url.username || "guest", ".*", ".*", ".*"]);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async delete() {
      await run("rabbitmqctl", ["-q", "delete_vhost", name]);
    },
  };
}
