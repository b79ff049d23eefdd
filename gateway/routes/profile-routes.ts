import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { ErrorCode, PlatformError } from "../../contracts/errors.ts";
import type { Queryable } from "../../runtime/database.ts";
import type { GatewayDeps, GatewayEnv } from "../gateway-env.ts";
import { requireToken } from "../middleware/require-token.ts";
import { surface } from "../middleware/surface.ts";
import { workflowResponse, workflowResponseSchema } from "../workflow-envelope.ts";

const enterpriseSchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    domain: z.string(),
    style: z.string().nullable(),
    logo: z.string().nullable(),
    banner: z.string().nullable(),
    copyright: z.string().nullable(),
  })
  .openapi("Enterprise");

const profileSchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    account: z.string(),
    email: z.string().nullable(),
    phone: z.string().nullable(),
    enterprise: enterpriseSchema,
  })
  .openapi("Profile");

const profileResponse = workflowResponseSchema(profileSchema, "ProfileResponse");
const responses = {
  200: { description: "Response<Profile>", content: { "application/json": { schema: profileResponse } } },
};

type Profile = z.infer<typeof profileSchema>;

async function profileOf(sql: Queryable, userId: string, tenantId: string | undefined): Promise<Profile> {
  const [row] = await sql<(Omit<Profile, "enterprise"> & { enterprise: Profile["enterprise"] })[]>`
    select u.id, u.name, u.account, u.email, u.phone,
           json_build_object('id', t.id, 'name', t.name, 'domain', t.domain, 'style', t.style,
                             'logo', t.logo, 'banner', t.banner, 'copyright', t.copyright) as enterprise
    from users u join tenants t on t.id = u.tenant_id
    where u.id = ${userId} and (${tenantId ?? null}::uuid is null or u.tenant_id = ${tenantId ?? null}::uuid)`;
  if (!row) throw new PlatformError(ErrorCode.NotFound, `no user ${userId}`);
  return row;
}

/** Spec 001 1.1: the profile of the token's user, or (sys form) of any user of the token's tenant. */
export function profileRoutes(deps: GatewayDeps) {
  const { accessTokens } = deps.oauth;
  const app = new OpenAPIHono<GatewayEnv>();
  app.use("/apis/*", surface("workflow"));
  for (const base of ["/apis/v2", "/apis/v2d"]) {
    app.use(`${base}/me/profile`, requireToken(accessTokens, { scopes: ["profile"], kind: "user" }));
    app.openapi(
      createRoute({
        method: "get",
        path: `${base}/me/profile`,
        tags: ["Workflow: user"],
        summary: "1.1 The profile of the token's user",
        security: [{ bearer: [] }],
        responses,
      }),
      async (c) => {
        const token = c.get("token");
        return c.json(workflowResponse([await profileOf(deps.db.sql, token.userId!, undefined)]), 200);
      },
    );
    app.use(
      `${base}/user/:userId/profile`,
      requireToken(accessTokens, { scopes: ["sys_profile"], kind: "sys" }),
    );
    app.openapi(
      createRoute({
        method: "get",
        path: `${base}/user/{userId}/profile`,
        tags: ["Workflow: user"],
        summary: "1.1 (sys form) The profile of a user of the application's tenant",
        security: [{ bearer: [] }],
        request: { params: z.object({ userId: z.uuid() }) },
        responses,
      }),
      async (c) => {
        const { userId } = c.req.valid("param");
        return c.json(workflowResponse([await profileOf(deps.db.sql, userId, c.get("token").tenantId)]), 200);
      },
    );
  }
  return app;
}
