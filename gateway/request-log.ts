import { randomUUID } from "node:crypto";
import type { HttpBindings } from "@hono/node-server";
import type { Result, Router } from "hono/router";
import type { H, RouterRoute } from "hono/types";
import type { Logger } from "../runtime/logger.ts";
import type { CounterSeries, HistogramSeries } from "../runtime/metrics.ts";
import { httpDuration, httpRequests } from "../runtime/platform-metrics.ts";
import { REQUEST_ID_HEADER, RequestIdResponse } from "./request-id-response.ts";

const REQUEST_ID_NAME = REQUEST_ID_HEADER.toLowerCase();
/** A caller's own request id is kept when it is a plain token; anything else is replaced. */
const ACCEPTABLE_ID = /^[\w\-=.:]{1,128}$/;
/** Requests slower than this are logged as warnings whatever their status. */
const SLOW_REQUEST_MS = 1000;
/** Requests held on purpose (push subscriptions wait for messages): never slow. */
const HELD_PATHS: ReadonlySet<string> = new Set(["/message/sub", "/message/stream"]);
/** Methods counted under their own name; anything else is one series, so callers cannot grow them. */
const COUNTED_METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

/** What Node's server hands the gateway with each request, and the id the request log gives it. */
export interface RequestBindings extends HttpBindings {
  requestId: string;
}

type Fetch<Env> = (request: Request, env: Env) => Response | Promise<Response>;
/** What Hono's router holds for each route: its handler and where it was added. */
export type MatchedRoute = [H, RouterRoute];

/**
 * Hono's router, keeping the routes of the request it matched last. Hono matches a request before
 * anything else of it runs, within the call to `fetch`, so right after that call they are the
 * routes of that request.
 */
export class RouteRecorder implements Router<MatchedRoute> {
  readonly name: string;
  #last: Result<MatchedRoute> | undefined;

  constructor(readonly router: Router<MatchedRoute>) {
    this.name = router.name;
  }

  add(method: string, path: string, handler: MatchedRoute): void {
    this.router.add(method, path, handler);
  }

  match(method: string, path: string): Result<MatchedRoute> {
    this.#last = this.router.match(method, path);
    return this.#last;
  }

  /** The routes of the request matched last. */
  get last(): Result<MatchedRoute> | undefined {
    return this.#last;
  }
}

/**
 * A header's first value, read from the request's raw header list: Node builds its `headers`
 * object on first use, which costs more than a short scan for one name.
 */
function rawHeader(rawHeaders: readonly string[], lowerName: string): string | undefined {
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!;
    if (name.length === lowerName.length && name.toLowerCase() === lowerName) return rawHeaders[i + 1];
  }
  return undefined;
}

/**
 * The route pattern that answered (`/files/:id`), never the raw path, so the number of series stays
 * bounded: the first matched route that is not middleware (a pattern ending in `*`); a request
 * only middleware took is `unmatched`.
 */
function routeLabel(matched: Result<MatchedRoute> | undefined): string {
  for (const [[, route]] of matched?.[0] ?? []) {
    if (!route.path.endsWith("*")) return route.path;
  }
  return "unmatched";
}

/** The HTTP metric series of one route and method, looked up once and kept. */
class RouteSeries {
  readonly #duration: HistogramSeries;
  readonly #answered = new Map<number, CounterSeries>();

  constructor(
    readonly method: string,
    readonly route: string,
  ) {
    this.#duration = httpDuration.series([method, route]);
  }

  record(status: number, seconds: number): void {
    let answered = this.#answered.get(status);
    if (!answered) {
      answered = httpRequests.series([this.method, this.route, String(status)]);
      this.#answered.set(status, answered);
    }
    answered.inc();
    this.#duration.observe(seconds);
  }
}

/** Series by route pattern and method: both bounded, so the map is too. */
const seriesByRoute = new Map<string, Map<string, RouteSeries>>();

function seriesOf(method: string, route: string): RouteSeries {
  let byMethod = seriesByRoute.get(route);
  if (!byMethod) {
    byMethod = new Map();
    seriesByRoute.set(route, byMethod);
  }
  let series = byMethod.get(method);
  if (!series) {
    series = new RouteSeries(method, route);
    byMethod.set(method, series);
  }
  return series;
}

/**
 * Gives each request an id (the caller's `X-Request-Id` or a new one, echoed on the response, with
 * `nosniff`, and bound as `requestId`), counts it with its latency in the HTTP metrics, and logs it when it ends:
 * every one at debug; at the default info level only those worth reading (4xx at info, 503 and
 * slow ones at warn, other 5xx at error), since a log line costs as much as the rest of a fast
 * request. It wraps the gateway's `fetch` rather than being middleware: a route no middleware
 * runs before answers synchronously, which spares Node's server a promise per request.
 * The path is logged, never the query string, which may carry an access token.
 */
export function withRequestLog(
  fetch: Fetch<RequestBindings>,
  routes: RouteRecorder,
  log: Logger,
): Fetch<HttpBindings> {
  return (request, { incoming, outgoing }) => {
    const started = performance.now();
    const given = rawHeader(incoming.rawHeaders, REQUEST_ID_NAME);
    const requestId = given && ACCEPTABLE_ID.test(given) ? given : randomUUID();
    if (outgoing instanceof RequestIdResponse) outgoing.requestId = requestId;
    else {
      outgoing.setHeader(REQUEST_ID_HEADER, requestId);
      outgoing.setHeader("x-content-type-options", "nosniff");
    }
    const answer = fetch(request, { incoming, outgoing, requestId });
    const matched = routes.last;
    // No closure is made for a synchronous answer: the runtime names every function a request
    // creates, which costs as much as the rest of this wrapper.
    return answer instanceof Promise
      ? answer.then((response) => recordAnswer(log, request, requestId, matched, started, response))
      : recordAnswer(log, request, requestId, matched, started, answer);
  };
}

/** Counts an answered request in the HTTP metrics and logs it at the level its outcome deserves. */
function recordAnswer(
  log: Logger,
  request: Request,
  requestId: string,
  matched: Result<MatchedRoute> | undefined,
  started: number,
  response: Response,
): Response {
  const ms = performance.now() - started;
  const { status } = response;
  const method = COUNTED_METHODS.has(request.method) ? request.method : "OTHER";
  seriesOf(method, routeLabel(matched)).record(status, ms / 1000);
  const level =
    status >= 500 && status !== 503
      ? "error"
      : status === 503 || (ms > SLOW_REQUEST_MS && !HELD_PATHS.has(new URL(request.url).pathname))
        ? "warn"
        : status >= 400
          ? "info"
          : "debug";
  if (log.isLevelEnabled(level)) {
    const path = new URL(request.url).pathname;
    log[level]({ requestId, method: request.method, path, status, ms: Math.round(ms * 10) / 10 }, "request");
  }
  return response;
}
