import { bearsToken } from "./secrets.ts";

/** Who may read `/metrics`: the scraper bearing `token` when one is set, else anyone when `open`. */
export interface MetricsAccess {
  token: string | undefined;
  open: boolean;
}

/**
 * Why a scrape with this `Authorization` header is refused, or undefined when it may read. With
 * neither a token nor the operator's explicit opening, nobody may: the counts name routes, queues
 * and clients' failures, which are not for whoever reaches the port.
 */
export function metricsRefusal(access: MetricsAccess, authorization: string | undefined): string | undefined {
  if (access.token) {
    return bearsToken(authorization, access.token) ? undefined : "the metrics API needs its operator token";
  }
  if (access.open) return undefined;
  return "/metrics is closed: set METRICS_TOKEN and scrape with it as a bearer token, or set METRICS_PUBLIC=true to serve it to anyone who can reach it";
}

export const METRICS_CHALLENGE = 'Bearer realm="metrics"';
