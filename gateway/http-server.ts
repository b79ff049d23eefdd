import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import type { Gateway } from "./app.ts";

export interface HttpServer {
  port: number;
  /** Stops accepting connections and waits up to `drainMs` for requests in flight. */
  close(drainMs: number): Promise<void>;
}

export function listen(app: Gateway, options: { host: string; port: number }): Promise<HttpServer> {
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: app.fetch, hostname: options.host, port: options.port }) as Server;
    server.once("error", reject);
    server.once("listening", () => {
      server.off("error", reject);
      const { port } = server.address() as AddressInfo;
      resolve({ port, close: (drainMs) => closeServer(server, drainMs) });
    });
  });
}

function closeServer(server: Server, drainMs: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => server.closeAllConnections(), drainMs);
    server.close(() => {
      clearTimeout(timer);
      resolve();
    });
    // Keep-alive connections with no request in flight would hold close() open until they time out.
    server.closeIdleConnections();
  });
}
