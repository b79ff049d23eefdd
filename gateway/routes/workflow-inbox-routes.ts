import { OpenAPIHono, z } from "@hono/zod-openapi";
import { processesOf, readEveryCopy, todoTasks } from "../../workflow/inbox.ts";
import { PROCESS_CATEGORIES, type ProcessCategory } from "../../workflow/list-filters.ts";
import type { WorkflowDeps } from "../../workflow/workflow-deps.ts";
import type { GatewayEnv, GatewayUses } from "../gateway-env.ts";
import type { WorkflowDataMode } from "../workflow/data-mode.ts";
import { booleanParameter, pageParameters } from "../workflow/directory-parameters.ts";
import { USER_LIST_FORMS } from "../workflow/user-list-forms.ts";
import { workflowOperationsOn } from "../workflow/workflow-operation.ts";
import { profileRefSchema } from "../workflow/workflow-schemas.ts";

const inboxProcessSchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    uri: z.string(),
    tags: z.string(),
    entry: z.number().int(),
    create: z.number().int(),
    update: z.number().int(),
    read: z.number().int().nullable().openapi({ description: "when the user read their copy (cc)" }),
    ccCreate: z.number().int().nullable(),
    ccUpdate: z.number().int().nullable(),
    sort: z.number().int().nullable().openapi({ description: "the time `order` sorts by" }),
    owner: profileRefSchema.nullable(),
    status: z.enum(["doing", "suspended", "done", "killed"]),
    states: z.array(z.object({ code: z.string(), nameEx: z.string() })),
    rating: z.number().int().nullable(),
    milestone: z.object({ name: z.string(), percent: z.number().int() }).nullable(),
  })
  .passthrough()
  .openapi("InboxProcess");

const todoTaskSchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    code: z.string(),
    uri: z.string(),
    status: z.literal(1),
    assignUser: profileRefSchema.nullable().openapi({ description: "the user, or who entrusted it to them" }),
    entrusted: z.boolean().openapi({ description: "it reached the user by delegation" }),
    assignTime: z.number().int(),
    expireTime: z.number().int().nullable(),
    requiresThing: z.boolean(),
    process: z.object({ id: z.uuid(), entry: z.number().int(), name: z.string() }).passthrough(),
  })
  .passthrough()
  .openapi("TodoTask");

const optionalBoolean = booleanParameter.optional();

const listParameters = z.object({
  app: z.string().min(1).max(64).optional(),
  entry: z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER).optional(),
  keyword: z.string().max(700).optional(),
  fullText: optionalBoolean,
  timestamps: z.string().max(50).optional(),
  lastUpdate: z.string().max(50).optional(),
  orderTimes: z.string().max(50).optional(),
  milestones: z.string().max(50).optional(),
  ratings: z.string().max(50).optional(),
  statuses: z.string().max(100).optional(),
  states: z.string().max(3300).optional(),
  sep: optionalBoolean,
  thing: optionalBoolean,
  unread: optionalBoolean,
  archive: optionalBoolean,
  order: z.string().max(30).optional(),
  ...pageParameters,
});

const CATEGORY_SUMMARY: Record<ProcessCategory, string> = {
  doing: "2.4 Processes the user started or handled a task of that have not ended (suspended ones included)",
  done: "2.5 Ended processes the user started or handled a task of (killed ones included)",
  completed: "2.6 Processes the user started or handled a task of, ended or not",
  unrated: "2.7 Ended processes the user started and has not rated",
  cc: "2.7 Processes copied to the user, with when they read them",
  entrusted: "2.7 Processes a task of which reached the user by delegation",
  operator: "2.7 Processes the user handled a task of",
};

/**
 * Spec 001's lists of the user's work: to-do tasks (2.3), processes by category (2.4-2.7) and
 * marking every copy read (2.12). The user's own under `/me` (user tokens); the sys forms under
 * `/user/{userId}` for any user of the application's tenant, by account or id (sys tokens, the
 * scope's `sys_` form). Pages: `limit` default 20, at most 1000; `total` counts every match.
 */
export function workflowInboxRoutes(
  deps: GatewayUses<"oauth" | "workflowTenants">,
  inbox: WorkflowDeps,
  mode: WorkflowDataMode,
) {
  const app = new OpenAPIHono<GatewayEnv>();
  const operation = workflowOperationsOn(app, deps, mode);

  for (const { at, label, whose, tokenFor, named } of USER_LIST_FORMS) {
    operation(
      {
        method: "get",
        path: `${at}/tasks/todo`,
        operationId: `get${whose}TodoTasks`,
        summary: `2.3${label} The user's to-do tasks, newest first; \`entrust=true\` adds those entrusted to them; tasks of suspended processes are absent`,
        tag: "task query",
        ...tokenFor("task"),
        parameters: z.object({
          entrust: optionalBoolean,
          sep: optionalBoolean,
          thing: optionalBoolean,
          ...pageParameters,
        }),
        entity: todoTaskSchema,
        entityName: "Task",
      },
      async (_c, caller, input) => {
        const { parameters } = input;
        const { total, tasks } = await todoTasks(inbox, caller, named(input), {
          entrust: parameters.entrust ?? false,
          sep: parameters.sep,
          thing: parameters.thing,
          start: parameters.start,
          limit: parameters.limit,
        });
        return { entities: tasks, total };
      },
    );

    for (const category of PROCESS_CATEGORIES) {
      const Category = category[0]!.toUpperCase() + category.slice(1);
      operation(
        {
          method: "get",
          path: `${at}/processes/${category}`,
          operationId: `get${whose}${Category}Processes`,
          summary: `${CATEGORY_SUMMARY[category]}${label}; every filter of spec 001's table, archived ones only with \`archive=true\``,
          tag: "task query",
          ...tokenFor("process"),
          parameters: listParameters,
          entity: inboxProcessSchema,
          entityName: "Process",
        },
        async (_c, caller, input) => {
          const list = await processesOf(inbox, caller, named(input), category, input.parameters);
          return { entities: list.processes, total: list.total };
        },
      );
    }
  }

  operation(
    {
      method: "post",
      path: "/me/processes",
      operationId: "adjustMyProcesses",
      summary:
        "2.12 Bulk adjustment of the user's processes: `action=read` marks every copy to the user read, formal and test data alike (a Workflow application's token: its workflow's copies); `entities[0]` is how many were unread",
      tag: "task query",
      scope: "process_edit",
      kinds: "user",
      parameters: z.object({ action: z.enum(["read"]) }),
      entity: z.number().int(),
      entityName: "integer",
    },
    async (_c, caller) => ({ entities: [await readEveryCopy(inbox.sql, caller)] }),
  );
  return app;
}
