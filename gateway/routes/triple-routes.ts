import { OpenAPIHono, z } from "@hono/zod-openapi";
import { parsePositionFilter, searchUsers } from "../../directory/positions.ts";
import {
  checkTripleChanges,
  createTriple,
  listTriples,
  modifyTriple,
  removeTriple,
  type TripleType,
  tripleEntry,
} from "../../directory/triples.ts";
import type { GatewayEnv, GatewayUses } from "../gateway-env.ts";
import { requireToken } from "../middleware/require-token.ts";
import { serve } from "../operation.ts";
import { type WorkflowDataMode, workflowOperationId } from "../workflow/data-mode.ts";
import {
  booleanParameter,
  documentedParameters,
  listParameter,
  metaParameter,
  pageParameters,
  parseParameters,
} from "../workflow/directory-parameters.ts";
import { requestParameters } from "../workflow/request-parameters.ts";
import { tripleEntrySchema } from "../workflow/triple-schemas.ts";
import { workflowErrors, workflowResponse, workflowResponseSchema } from "../workflow/workflow-envelope.ts";

const TYPES = ["user", "dept", "post"] as const;
const LISTS = { users: "user", depts: "dept", posts: "post" } as const;

const text = (max: number) => z.string().max(max);
const domainParameter = { domain: text(253).optional() };
const sourceParameter = z.string().min(1).max(32).optional();

/** 5.2's parameters; those of another type are ignored, as spec 001 lists them per type. */
const createParameters = z.object({
  code: z.string().min(1).max(100),
  name: z.string().min(1).max(200),
  description: text(2000).optional(),
  source: sourceParameter,
  tags: text(1000).optional(),
  meta: metaParameter.optional(),
  email: text(320).optional(),
  phone: text(32).optional(),
  title: text(100).optional(),
  express: booleanParameter.optional(),
  parent: text(100).optional(),
  independent: booleanParameter.optional(),
  formal: booleanParameter.optional(),
  ...domainParameter,
});

const modifyParameters = createParameters.omit({ code: true }).partial();

const userQueryParameters = z.object({
  ...pageParameters,
  accounts: listParameter(/,/, 1000, 100).optional(),
  keyword: listParameter(/[,\s]+/, 20, 64).optional(),
  positions: z.string().max(5000).optional(),
  ...domainParameter,
});

const removeParameters = z.object({ ...domainParameter, source: sourceParameter });

const found = {
  description: "Response<User|Dept|Post>",
  content: { "application/json": { schema: workflowResponseSchema(tripleEntrySchema, "TripleResponse") } },
};
const responses = { 200: found };

/** Spec 001 5.x: users, departments and posts of the application's tenant, read and written by sys tokens. */
export function tripleRoutes(deps: GatewayUses<"db" | "oauth" | "workflowTenants">, mode: WorkflowDataMode) {
  const tenants = deps.workflowTenants;
  const { accessTokens } = deps.oauth;
  const sql = deps.db.sql;
  const app = new OpenAPIHono<GatewayEnv>();
  const read = requireToken(accessTokens, { scopes: ["sys_triple"], kind: "sys" });
  const edit = requireToken(accessTokens, { scopes: ["sys_triple_edit"], kind: "sys" });
  const tags = ["Directory"];
  const security = [{ bearer: [] }];
  const typeParam = z.enum(TYPES);
  const idcParam = z.string().min(1).max(360);
  const operationId = (name: string) => workflowOperationId(mode, name);
  serve(app, {
    method: "get",
    path: `/triple/{type}/{idc}`,
    operationId: operationId("getTriple"),
    tags,
    summary: "5.1 A user, department or post by code (`code@domain` or `domain` for a global application)",
    security,
    token: read,
    request: {
      params: z.object({ type: typeParam, idc: idcParam }),
      query: z.object({ ...domainParameter, verbose: booleanParameter.optional() }),
    },
    responses,
    ...workflowErrors(),
    handle: async (c) => {
      const { type, idc } = c.req.valid("param");
      const { domain, verbose } = c.req.valid("query");
      const { tenantId, code } = await tenants.resolveCode(c.get("token"), idc, domain);
      return c.json(workflowResponse([await tripleEntry(sql, tenantId, { type, code, verbose })]), 200);
    },
  });

  serve(app, {
    method: "put",
    path: `/triple/{type}`,
    operationId: operationId("createTriple"),
    tags,
    summary: "5.2 Create a user, department or post (parameters in the query, a form or JSON)",
    description: "`code` and `name` are required; the other parameters apply to the type that has them.",
    security,
    token: edit,
    request: {
      params: z.object({ type: typeParam }),
      ...documentedParameters(createParameters, "CreateTripleParameters"),
    },
    responses: responses,
    ...workflowErrors(413),
    ownInput: "query and body",
    handle: async (c) => {
      const { type } = c.req.valid("param");
      const { domain, ...fields } = parseParameters(createParameters, await requestParameters(c));
      const tenantId = await tenants.resolve(c.get("token"), domain);
      return c.json(workflowResponse([await createTriple(sql, tenantId, type, fields)]), 200);
    },
  });

  serve(app, {
    method: "post",
    path: `/triple/{type}/{idc}`,
    operationId: operationId("modifyTriple"),
    tags,
    summary: "5.3 Change a department's or post's description, tags or meta (a user's contact fields)",
    security,
    token: edit,
    request: {
      params: z.object({ type: typeParam, idc: idcParam }),
      ...documentedParameters(modifyParameters, "ModifyTripleParameters"),
    },
    responses: responses,
    ...workflowErrors(413),
    ownInput: "query and body",
    handle: async (c) => {
      const { type, idc } = c.req.valid("param");
      const { domain, ...changes } = parseParameters(modifyParameters, await requestParameters(c));
      checkTripleChanges(type, changes);
      const { tenantId, code } = await tenants.resolveCode(c.get("token"), idc, domain);
      return c.json(workflowResponse([await modifyTriple(sql, tenantId, type, code, changes)]), 200);
    },
  });

  serve(app, {
    method: "delete",
    path: `/triple/{type}/{id}`,
    operationId: operationId("removeTriple"),
    tags,
    summary: "5.4 Remove a user, department or post (by id or code); its positions stop counting",
    security,
    token: edit,
    request: {
      params: z.object({ type: typeParam, id: idcParam }),
      ...documentedParameters(removeParameters, "RemoveTripleParameters"),
    },
    responses: responses,
    ...workflowErrors(413),
    ownInput: "query and body",
    handle: async (c) => {
      const { type, id } = c.req.valid("param");
      const { domain, source } = parseParameters(removeParameters, await requestParameters(c));
      const { tenantId, code } = await tenants.resolveCode(c.get("token"), id, domain);
      return c.json(workflowResponse([await removeTriple(sql, tenantId, type, code, source)]), 200);
    },
  });

  serve(app, {
    method: "get",
    path: `/triple/{list}`,
    operationId: operationId("listTriples"),
    tags,
    summary: "5.5 Users (paged, by accounts, keywords or positions), or every department or post",
    description: "Departments and posts take `domain` only.",
    security,
    token: read,
    request: {
      params: z.object({ list: z.enum(["users", "depts", "posts"]) }),
      query: userQueryParameters,
    },
    responses,
    ...workflowErrors(),
    ownInput: "query and body",
    handle: async (c) => {
      const type: TripleType = LISTS[c.req.valid("param").list];
      if (type !== "user") {
        const { domain } = parseParameters(z.object(domainParameter), c.req.query());
        const entries = await listTriples(sql, await tenants.resolve(c.get("token"), domain), type);
        return c.json(workflowResponse(entries), 200);
      }
      const query = parseParameters(userQueryParameters, c.req.query());
      const tenantId = await tenants.resolve(c.get("token"), query.domain);
      const { total, users } = await searchUsers(sql, tenantId, {
        start: query.start,
        limit: query.limit,
        accounts: query.accounts,
        keywords: query.keyword,
        positions: query.positions ? parsePositionFilter(query.positions) : undefined,
      });
      return c.json(workflowResponse(users, total), 200);
    },
  });
  return app;
}
