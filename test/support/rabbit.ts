import { execFile } from "node:child_process";
import { connect, createServer, type Server, type Socket } from "node:net";
import { promisify } from "node:util";

const run = promisify(execFile);

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

  restore(): void {
    this.cutOff = false;
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise((resolve) => this.server.close(resolve));
  }
}
