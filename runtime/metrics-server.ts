import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { Logger } from "./logger.ts";
import { metrics, PROMETHEUS_CONTENT_TYPE } from "./metrics.ts";
import { METRICS_CHALLENGE, type MetricsAccess, metricsRefusal } from "./metrics-access.ts";

export interface MetricsServer {
  port: number;
  close(): Promise<void>;
}

/** The platform's error envelope of a refused scrape, as the gateway answers it. */
function refusalBody(message: string): string {
  return JSON.stringify({ errno: 10007, ecode: "UNAUTHENTICATED", error: message, total: 0, entities: [] });
}

/**
 * What a worker process, which serves no API, answers a scraper and a liveness probe with:
 * `GET /metrics` (under the same access rule as the gateway's) and `GET /healthz`. Nothing else.
 */
export async function startMetricsServer(
  options: { port: number; host: string } & MetricsAccess,
  log: Logger,
): Promise<MetricsServer> {
  const server = createServer(async (request, response) => {
    const path = (request.url ?? "").split("?")[0];
    if (request.method !== "GET" || (path !== "/metrics" && path !== "/healthz")) {
      response.writeHead(404, { "Content-Type": "application/json" }).end('{"error":"not found"}');
      return;
    }
    if (path === "/healthz") {
      response.writeHead(200, { "Content-Type": "application/json" }).end('{"status":"ok"}');
      return;
    }
    const refusal = metricsRefusal(options, request.headers.authorization);
    if (refusal) {
      response
        .writeHead(401, { "Content-Type": "application/json", "WWW-Authenticate": METRICS_CHALLENGE })
        .end(refusalBody(refusal));
      return;
    }
    response
      .writeHead(200, { "Content-Type": PROMETHEUS_CONTENT_TYPE, "Cache-Control": "no-store" })
      .end(await metrics.render());
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, resolve);
  });
  const { port } = server.address() as AddressInfo;
  log.info({ port }, "serving /metrics");
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
