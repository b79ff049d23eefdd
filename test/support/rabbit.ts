import { execFile } from "node:child_process";
import { connect, createServer, type Server, type Socket } from "node:net";
import { promisify } from "node:util";

const run = promisify(execFile);

/**
 * A RabbitMQ virtual host of its own, so a suite's queues (named as in production) never share
 * messages with another suite on the same broker; deleted with its queues.
 */
export async function freshVhost(
  amqpUrl: string,
): Promise<{ name: string; url: string; delete(): Promise<void> }> {
  const name = `op_test_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  await run("rabbitmqctl", ["-q", "add_vhost", name]);
  const url = new URL(amqpUrl);
  await run("rabbitmqctl", ["-q", "set_permissions", "-p", name, url.username || "guest", ".*", ".*", ".*"]);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    async delete() {
      await run("rabbitmqctl", ["-q", "delete_vhost", name]);
    },
  };
}

/** Closes, from the broker's side, every connection to a virtual host; returns how many there were. */
export async function closeVhostConnections(vhost: string): Promise<number> {
  const { stdout } = await run("rabbitmqctl", [
    "-q",
    "list_connections",
    "--no-table-headers",
    "pid",
    "vhost",
  ]);
  const pids = stdout
    .split("\n")
    .map((line) => line.split("\t"))
    .filter(([, name]) => name?.trim() === vhost)
    .map(([pid]) => pid!.trim());
  for (const pid of pids) await run("rabbitmqctl", ["-q", "close_connection", pid, "closed by the test"]);
  return pids.length;
}

/** Closes, from the broker's side, the connection that announced itself with this name. */
export async function closeRabbitConnection(connectionName: string): Promise<void> {
  const { stdout } = await run("rabbitmqctl", [
    "-q",
    "list_connections",
    "--no-table-headers",
    "pid",
    "client_properties",
  ]);
  const line = stdout.split("\n").find((l) => l.includes(`"connection_name","${connectionName}"`));
  if (!line) throw new Error(`no RabbitMQ connection named ${connectionName}`);
  const pid = line.split("\t")[0]!.trim();
  await run("rabbitmqctl", ["-q", "close_connection", pid, "closed by the test"]);
}

/** A TCP relay in front of RabbitMQ that a test can cut and restore, to make the broker unreachable. */
export class TcpProxy {
  private readonly sockets = new Set<Socket>();
  private readonly links = new Set<{ client: Socket; upstream: Socket }>();
  private cutOff = false;

  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  static async start(target: URL): Promise<TcpProxy> {
    let proxy: TcpProxy | undefined;
    const server = createServer((client) => {
      if (!proxy || proxy.cutOff) {
        client.destroy();
        return;
      }
      const upstream = connect({ host: target.hostname, port: Number(target.port || 5672) });
      for (const socket of [client, upstream]) {
        proxy.sockets.add(socket);
        socket.on("close", () => proxy?.sockets.delete(socket));
        socket.on("error", () => {
          client.destroy();
          upstream.destroy();
        });
      }
      const link = { client, upstream };
      proxy.links.add(link);
      client.on("close", () => proxy?.links.delete(link));
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const address = server.address();
    if (!address || typeof address === "string") throw new Error("proxy has no port");
    proxy = new TcpProxy(server, address.port);
    return proxy;
  }

  cut(): void {
    this.cutOff = true;
    for (const socket of this.sockets) socket.destroy();
  }

  /**
   * Stops passing what clients send on to the broker, keeping the connections open: a publish in
   * flight then never arrives and is never confirmed, as when a process hangs or dies mid-publish.
   */
  hold(): void {
    for (const { client, upstream } of this.links) {
      client.unpipe(upstream);
      client.pause();
    }
  }

  restore(): void {
    this.cutOff = false;
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise((resolve) => this.server.close(resolve));
  }
}
