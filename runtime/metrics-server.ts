import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { Logger } from "./logger.ts";
import { metrics, PROMETHEUS_CONTENT_TYPE } from "./metrics.ts";
import { METRICS_CHALLENGE, type MetricsAccess, metricsRefusal } from "./metrics-access.ts";
import type { Readiness } from "./readiness.ts";

export interface MetricsServer {
  port: number;
  close(): Promise<void>;
}

/** The platform's error envelope of a refused scrape, as the gateway answers it. */
function refusalBody(message: string): string {
  return JSON.stringify({ errno: 10007, ecode: "UNAUTHENTICATED", error: message, total: 0, entities: [] });
}

const JSON_HEADERS = { "Content-Type": "application/json", "X-Content-Type-Options": "nosniff" };

/**
 * What a worker process, which serves no API, answers a scraper and the probes with: `GET
 * /metrics` (under the same access rule as the gateway's), `GET /healthz` (alive) and `GET /readyz`
 * (its database and broker reachable, not stopping; 503 otherwise). Nothing else.
 */
export async function startMetricsServer(
  options: { port: number; host: string; readiness: () => Promise<Readiness> } & MetricsAccess,
  log: Logger,
): Promise<MetricsServer> {
  const server = createServer(async (request, response) => {
    const path = (request.url ?? "").split("?")[0];
    if (request.method !== "GET" || (path !== "/metrics" && path !== "/healthz" && path !== "/readyz")) {
      response.writeHead(404, JSON_HEADERS).end('{"error":"not found"}');
      return;
    }
    if (path === "/healthz") {
      response.writeHead(200, JSON_HEADERS).end('{"status":"ok"}');
      return;
    }
    if (path === "/readyz") {
      const state = await options.readiness();
      response.writeHead(state.status === "ready" ? 200 : 503, JSON_HEADERS).end(JSON.stringify(state));
      return;
    }
    const refusal = metricsRefusal(options, request.headers.authorization);
    if (refusal) {
      response
        .writeHead(401, { ...JSON_HEADERS, "WWW-Authenticate": METRICS_CHALLENGE })
        .end(refusalBody(refusal));
      return;
    }
    response
      .writeHead(200, {
        "Content-Type": PROMETHEUS_CONTENT_TYPE,
        "Cache-Control": "no-store",
        "X-Content-Type-Options": "nosniff",
      })
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
