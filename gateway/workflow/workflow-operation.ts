import { type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { TaskLink } from "../../workflow/task-links.ts";
import { type WorkflowCaller, workflowCaller } from "../../workflow/workflow-caller.ts";
import type { GatewayEnv, GatewayUses } from "../gateway-env.ts";
import { serve } from "../operation.ts";
import { type WorkflowDataMode, workflowOperationId } from "./data-mode.ts";
import { documentedParameters, parseParameters } from "./directory-parameters.ts";
import { requestParameters } from "./request-parameters.ts";
import { type TokenKinds, workflowToken } from "./workflow-access.ts";
import { workflowErrors, workflowResponse, workflowResponseSchema } from "./workflow-envelope.ts";

/** Parameters every workflow operation takes: the tenant of a global application, the user of a sys token. */
const callerParameters = {
  domain: z.string().max(253).optional(),
  userId: z.string().min(1).max(360).optional(),
};

export interface WorkflowOperation<
  Params extends z.ZodObject,
  Parameters extends z.ZodObject,
  Headers extends z.ZodObject = z.ZodObject,
> {
  method: "get" | "put" | "post" | "delete";
  /** Below the API base, with `{name}` path parameters. */
  path: string;
  operationId: string;
  summary: string;
  tag: string;
  scope: string;
  kinds: TokenKinds;
  params?: Params;
  parameters?: Parameters;
  /** Request headers the operation reads (lower-case names), beyond the token's. */
  headers?: Headers;
  /** What `entities` holds, for the document. */
  entity: z.ZodType;
  /**
   * The answer's schema when it is not `Response<entity>` (spec 001's push answers its own
   * MessageResult); the handler then answers with a response of its own.
   */
  answer?: z.ZodType;
  /** Whether a task link (3.2's secure URL) opens this request; without it, links are refused. */
  opensWithTaskLink?: (c: Context<GatewayEnv>, link: TaskLink) => boolean;
  entityName: string;
}

/** What answers an operation: its entities (and total), or a response of its own (a file). */
export type WorkflowHandler<
  Params extends z.ZodObject,
  Parameters extends z.ZodObject,
  Headers extends z.ZodObject = z.ZodObject,
> = (
  c: Context<GatewayEnv>,
  caller: WorkflowCaller,
  input: {
    params: z.infer<Params>;
    parameters: z.infer<Parameters> & { domain?: string; userId?: string };
    headers: z.infer<Headers>;
  },
) => Promise<{ entities: unknown[]; total?: number } | Response>;

/** `workflowOperation` bound to one route file's app and data mode. */
export function workflowOperationsOn(
  app: OpenAPIHono<GatewayEnv>,
  deps: GatewayUses<"oauth" | "workflowTenants">,
  mode: WorkflowDataMode,
) {
  return <Params extends z.ZodObject, Parameters extends z.ZodObject, Headers extends z.ZodObject>(
    operation: WorkflowOperation<Params, Parameters, Headers>,
    handler: WorkflowHandler<Params, Parameters, Headers>,
  ) => workflowOperation(app, deps, mode, operation, handler);
}

/** The schemas an operation derives from its definition, the same for both data modes. */
interface OperationSchemas {
  parameterSchema: z.ZodObject;
  documented: ReturnType<typeof documentedParameters>;
  response: z.ZodType;
}

/**
 * By operation (its id and route), its derived schemas, made for the first data mode and reused for
 * the other: a fifth of the gateway's construction, and of every start, went to making them twice.
 */
const schemasByOperation = new Map<string, OperationSchemas>();

function operationSchemas(operation: WorkflowOperation<z.ZodObject, z.ZodObject>): OperationSchemas {
  const key = `${operation.operationId} ${operation.method} ${operation.path}`;
  let schemas = schemasByOperation.get(key);
  if (!schemas) {
    const parameterSchema = (operation.parameters ?? z.object({})).extend(callerParameters);
    schemas = {
      parameterSchema,
      documented: documentedParameters(parameterSchema, `${operation.operationId}Parameters`),
      response:
        operation.answer ?? workflowResponseSchema(operation.entity, `${operation.operationId}Response`),
    };
    schemasByOperation.set(key, schemas);
  }
  return schemas;
}

/**
 * Registers one operation of spec 001's workflow API, for its data `mode` (live or test): the
 * token check with the operation's scope and token kinds, its parameters from the query or the
 * body (reported in the caller's language), the caller resolved, and the whole in /openapi.json.
 */
export function workflowOperation<
  Params extends z.ZodObject,
  Parameters extends z.ZodObject,
  Headers extends z.ZodObject = z.ZodObject,
>(
  app: OpenAPIHono<GatewayEnv>,
  deps: GatewayUses<"oauth" | "workflowTenants">,
  mode: WorkflowDataMode,
  operation: WorkflowOperation<Params, Parameters, Headers>,
  handler: WorkflowHandler<Params, Parameters, Headers>,
): void {
  const { parameterSchema, documented, response } = operationSchemas(operation);
  serve(app, {
    method: operation.method,
    path: operation.path,
    operationId: workflowOperationId(mode, operation.operationId),
    tags: [`Workflow: ${operation.tag}`],
    summary: operation.summary,
    security: [{ bearer: [] }],
    token: workflowToken(
      deps,
      operation.scope,
      operation.kinds,
      operation.opensWithTaskLink && { test: mode.test, opens: operation.opensWithTaskLink },
    ),
    request: {
      ...(operation.params ? { params: operation.params } : {}),
      ...(operation.headers ? { headers: operation.headers } : {}),
      ...documented,
    },
    responses: {
      200: {
        description: operation.answer ? operation.entityName : `Response<${operation.entityName}>`,
        content: {
          "application/json": { schema: response },
        },
      },
    },
    ...workflowErrors(413),
    ownInput: "query and body",
    // The handler's answers are described above; the framework need not check them against the route.
    handle: (async (c: Context<GatewayEnv>) => {
      const params = (operation.params ? operation.params.parse(c.req.param()) : {}) as z.infer<Params>;
      const parameters = parseParameters(
        parameterSchema,
        await requestParameters(c),
      ) as z.infer<Parameters> & {
        domain?: string;
        userId?: string;
      };
      const headers = (
        operation.headers ? parseParameters(operation.headers, c.req.header()) : {}
      ) as z.infer<Headers>;
      const caller = await workflowCaller(
        deps.oauth.applications,
        deps.workflowTenants,
        c.get("token"),
        mode.test,
        parameters,
      );
      const result = await handler(c, caller, { params, parameters, headers });
      if (result instanceof Response) return result;
      return c.json(workflowResponse(result.entities, result.total ?? 0), 200);
    }) as never,
  });
}
