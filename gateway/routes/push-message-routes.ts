import { OpenAPIHono, z } from "@hono/zod-openapi";
import { MAX_EID_LENGTH, PUSH_TYPES, publishPushMessage } from "../../push/push-messages.ts";
import type { GatewayEnv, GatewayUses } from "../gateway-env.ts";
import { publishResultSchema, pushMessageOf, pushMessageSchema } from "../push-schemas.ts";
import type { WorkflowDataMode } from "../workflow/data-mode.ts";
import { workflowOperationsOn } from "../workflow/workflow-operation.ts";

/**
 * Spec 001's push, back end: a system publishes a `task` or `cc` message for a user of its tenant
 * (by GUID or `account@domain`) in the API's data mode; subscribers of that user, on any gateway,
 * receive it.
 */
export function pushMessageRoutes(
  deps: GatewayUses<"broker" | "db" | "log" | "oauth" | "workflowTenants">,
  mode: WorkflowDataMode,
) {
  const tenants = deps.workflowTenants;
  const app = new OpenAPIHono<GatewayEnv>();
  const operation = workflowOperationsOn(app, deps, mode);
  operation(
    {
      method: "post",
      path: "/message",
      operationId: "publishMessage",
      summary:
        "Push: publish a message of type `tid` (`task` or `cc`) with event id `eid` for the user `uid` (GUID or account@domain) of the token's tenant; answers MessageResult, times in milliseconds",
      tag: "push",
      scope: "sys_message_edit",
      kinds: "sys",
      parameters: z.object({
        uid: z.string().min(1).max(360),
        tid: z.enum(PUSH_TYPES as ["task", "cc"]),
        eid: z.string().max(MAX_EID_LENGTH).optional(),
      }),
      entity: pushMessageSchema,
      entityName: "MessageResult",
      answer: publishResultSchema,
    },
    async (c, caller, { parameters }) => {
      // Another tenant's domain is refused; an account or GUID the tenant lacks is not found.
      const named = await tenants.resolveCode(caller.token, parameters.uid, parameters.domain);
      const userId = await tenants.userId(named.tenantId, named.code);
      const message = await publishPushMessage(deps.db.sql, deps, {
        tenantId: named.tenantId,
        userId,
        test: mode.test,
        type: parameters.tid,
        eid: parameters.eid ?? "",
      });
      return c.json({ error: "", time: message.time, message: pushMessageOf(message) }, 200);
    },
  );
  return app;
}
