import { createRoute, type OpenAPIHono, type RouteConfig, type RouteHandler } from "@hono/zod-openapi";
import type { Context, MiddlewareHandler } from "hono";
import { type ErrorStatus, errorResponses, operatorErrorResponses } from "./error-responses.ts";
import type { ApiSurface, GatewayEnv } from "./gateway-env.ts";

/**
 * What a handler reads itself rather than the framework validating: "all" of its input (uploads
 * read as they stream in, a file id that is not one simply not found), or its "query and body"
 * (spec 001's parameters come from the query or any kind of body and are reported in the caller's
 * language), its path parameters still validated.
 */
export type OwnInput = "all" | "query and body";

type Request = NonNullable<RouteConfig["request"]>;

/** The input the framework validates: the declared one, less what the handler reads itself. */
type Validated<Q extends Request, O extends OwnInput | undefined> = O extends "all"
  ? Record<never, never>
  : O extends "query and body"
    ? Pick<Q, "params">
    : Q;

/** `/{id}/meta` as Hono writes it, `/:id/meta`. */
type HonoPath<P extends string> = P extends `${infer Head}{${infer Name}}${infer Tail}`
  ? `${Head}:${Name}${HonoPath<Tail>}`
  : P;

/** One operation: its description, schemas, token check and error answers, and its handler. */
export type Declaration<
  M extends RouteConfig["method"],
  P extends string,
  Q extends Request,
  R extends RouteConfig["responses"],
  O extends OwnInput | undefined,
> = Omit<RouteConfig, "method" | "path" | "request" | "responses" | "middleware" | "hide"> & {
  /** The surface whose envelope its error answers are documented in. */
  surface: ApiSurface;
  method: M;
  path: P;
  request?: Q;
  /** Its answers other than errors. */
  responses: R;
  /** The error statuses it answers, each with its usual meaning unless `meanings` says it closer. */
  errors?: readonly ErrorStatus[];
  meanings?: Partial<Record<ErrorStatus, string>>;
  /** The token check, before the framework validates anything (a 401 wins over a 400). */
  token?: MiddlewareHandler<GatewayEnv> | MiddlewareHandler<GatewayEnv>[];
  /** Behind the operator token (checked where the admin API is mounted): its 401 is about that token. */
  operatorToken?: true;
  ownInput?: O;
  handle: O extends "all"
    ? (c: Context<GatewayEnv, HonoPath<P>>) => Response | Promise<Response>
    : RouteHandler<{ method: M; path: P; request: Validated<Q, O>; responses: R }, GatewayEnv>;
};

/**
 * Registers one operation on `app` and in /openapi.json: the token check, then the framework's
 * validation of what the handler does not read itself, then `handle`.
 */
export function serve<
  M extends RouteConfig["method"],
  P extends string,
  R extends RouteConfig["responses"],
  Q extends Request = Record<never, never>,
  O extends OwnInput | undefined = undefined,
>(app: OpenAPIHono<GatewayEnv>, declaration: Declaration<M, P, Q, R, O>): void {
  const { surface, errors = [], meanings, token, operatorToken, ownInput, handle, ...route } = declaration;
  const failures = operatorToken
    ? operatorErrorResponses(errors, meanings)
    : errorResponses(surface, errors, meanings);
  const documented = createRoute({ ...route, responses: { ...route.responses, ...failures } });
  const middleware = token ? { middleware: token } : {};
  // `handle` is checked against the declaration by its type above; `openapi`'s overloads cannot
  // follow a route built from type parameters.
  if (!ownInput) {
    app.openapi({ ...documented, ...middleware }, handle as never);
    return;
  }
  app.openAPIRegistry.registerPath(documented);
  const { request, ...bare } = documented;
  const validated = ownInput === "all" ? {} : { request: { params: request?.params } };
  app.openapi({ ...bare, ...validated, ...middleware, hide: true }, handle as never);
}
