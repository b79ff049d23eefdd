import { OpenAPIHono, z } from "@hono/zod-openapi";
import { ErrorCode, PlatformError } from "../../contracts/errors.ts";
import {
  type GranteeParameter,
  grantPositionAccess,
  PERMISSIONS,
  positionAccessList,
  revokePositionAccess,
  userAccesses,
} from "../../workflow/access-grants.ts";
import type { GatewayEnv, GatewayUses } from "../gateway-env.ts";
import { accessSchema, positionGrantSchema } from "../workflow/access-schemas.ts";
import type { WorkflowDataMode } from "../workflow/data-mode.ts";
import { booleanParameter } from "../workflow/directory-parameters.ts";
import { USER_LIST_FORMS } from "../workflow/user-list-forms.ts";
import { workflowOperationsOn } from "../workflow/workflow-operation.ts";

const objectParams = z.object({
  scope: z.string().min(1).max(32),
  object: z.string().min(3).max(201),
});
const granteeParameters = {
  code: z.string().min(1).max(360).optional(),
  position: z.string().min(3).max(201).optional(),
};

/** `code` or `position`, exactly one: refused at the edge otherwise. */
function granteeOf(parameters: {
  code?: string | undefined;
  position?: string | undefined;
}): GranteeParameter {
  const { code, position } = parameters;
  if ((code === undefined) === (position === undefined)) {
    throw new PlatformError(ErrorCode.InvalidArgument, "give code (a user) or position, exactly one", {
      field: "code",
    });
  }
  return code !== undefined ? { code } : { position: position! };
}

/**
 * Spec 001's access grants: 1.7 (the user's own) and 7.1 (any user's, sys), and 7.2-7.4 on a
 * position, read, given and taken away by a tenant administrator or a holder of W on it (R reads).
 */
export function accessRoutes(deps: GatewayUses<"db" | "oauth" | "workflowTenants">, mode: WorkflowDataMode) {
  const app = new OpenAPIHono<GatewayEnv>();
  const sql = deps.db.sql;
  const operation = workflowOperationsOn(app, deps, mode);

  for (const { at, label, whose, tokenFor, named } of USER_LIST_FORMS) {
    operation(
      {
        method: "get",
        path: `${at}/accesses`,
        operationId: `get${whose}Accesses`,
        summary: `${whose === "My" ? "1.7" : "7.1"}${label} The user's accesses: given to them, and through the positions they hold now`,
        tag: "access",
        ...tokenFor("access"),
        entity: accessSchema,
        entityName: "Access",
      },
      async (_c, caller, input) => ({ entities: await userAccesses(sql, caller, named(input)) }),
    );
  }

  const onPosition = {
    path: "/access/{scope}/{object}/users",
    tag: "access",
    kinds: "user" as const,
    params: objectParams,
    entity: positionGrantSchema,
    entityName: "PositionGrant",
  };
  operation(
    {
      ...onPosition,
      method: "get",
      operationId: "getAccessUsers",
      summary:
        "7.2 The users given a permission on a position (scope `position`); with `includePositions`, the positions too. For a tenant administrator or a holder of R or W on the position",
      scope: "sys_access",
      parameters: z.object({ includePositions: booleanParameter.optional() }),
    },
    async (_c, caller, { params, parameters }) => ({
      entities: await positionAccessList(
        sql,
        caller,
        params.scope,
        params.object,
        parameters.includePositions ?? false,
      ),
    }),
  );

  operation(
    {
      ...onPosition,
      method: "put",
      operationId: "grantAccess",
      summary:
        "7.3 Give a user (`code`: account or id) or a position `permission` (R, W or X) on a position; by a tenant administrator or a holder of W on it. Answers the position's grants",
      scope: "access_edit",
      parameters: z.object({ ...granteeParameters, permission: z.enum(PERMISSIONS) }),
    },
    async (_c, caller, { params, parameters }) => {
      const { permission } = parameters;
      const grant = { grantee: granteeOf(parameters), permission };
      return { entities: await grantPositionAccess(sql, caller, params.scope, params.object, grant) };
    },
  );

  operation(
    {
      ...onPosition,
      method: "delete",
      operationId: "revokeAccess",
      summary:
        "7.4 Take a user's (`code`) or a position's permissions on a position away (only `permission` when given); by a tenant administrator or a holder of W on it. Answers the position's grants",
      scope: "access_edit",
      parameters: z.object({ ...granteeParameters, permission: z.enum(PERMISSIONS).optional() }),
    },
    async (_c, caller, { params, parameters }) => {
      const revoke = { grantee: granteeOf(parameters), permission: parameters.permission };
      return { entities: await revokePositionAccess(sql, caller, params.scope, params.object, revoke) };
    },
  );
  return app;
}
