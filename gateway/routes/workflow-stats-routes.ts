import { OpenAPIHono, z } from "@hono/zod-openapi";
import {
  processStatus,
  recentProcesses,
  statsAppGroups,
  todoWaiting,
} from "../../workflow/statistics/statistics-service.ts";
import type { GatewayEnv, GatewayUses } from "../gateway-env.ts";
import type { WorkflowDataMode } from "../workflow/data-mode.ts";
import { workflowOperationsOn } from "../workflow/workflow-operation.ts";

/** Latest Unix time accepted (9999-12-31). */
const MAX_TIME = 253_402_300_799;
const unixTime = z.coerce.number().int().min(0).max(MAX_TIME);

const appGroupSchema = z
  .object({
    tag: z.string().openapi({ description: "the main tag (the first of `tags`) of the group's apps" }),
    count: z.number().int(),
    apps: z.array(
      z.object({
        id: z.uuid(),
        name: z.string(),
        code: z.string(),
        tags: z.string(),
        processCount: z
          .number()
          .int()
          .openapi({ description: "processes started (0 while statistics are off)" }),
        creationDate: z.number().int(),
        release: z.number().int().nullable().openapi({
          description: "when its version online for the data mode was deployed; null: none online",
        }),
      }),
    ),
  })
  .openapi("StatsAppGroup");
const statusSchema = z
  .object({
    running: z.number().int(),
    suspend: z.number().int(),
    killed: z.number().int(),
    completed: z.number().int(),
  })
  .openapi("StatsProcessStatus");
const recentSchema = z
  .record(
    z.string(),
    z.object({ started: z.number().int(), completed: z.number().int(), killed: z.number().int() }),
  )
  .openapi("StatsRecentProcesses", { description: "by each period's start (Unix seconds), oldest first" });
const todoSchema = z.record(z.string(), z.number().int()).openapi("StatsTodoWaiting", {
  description: "by each period's start (Unix seconds): the mean wait in seconds of the to-dos handled in it",
});

const idParam = z.object({
  id: z
    .string()
    .min(1)
    .max(64)
    .openapi({ description: "an app's id (or code), or `*` for every app the caller sees" }),
});
const cycleParameters = z.object({
  cycle: z.enum(["hour", "day", "week", "month", "year"]).default("day"),
  finish: unixTime
    .optional()
    .openapi({ description: "beyond spec 001: a time in the latest period (default now)" }),
});

/**
 * Spec 001 8.x: statistics of processes and to-dos, from the roll-ups the relay keeps for tenants
 * that switched `workflow.statistics` on (docs/statistics.md); zero counts for the others.
 */
export function workflowStatsRoutes(
  deps: GatewayUses<"db" | "oauth" | "workflowTenants" | "statistics">,
  mode: WorkflowDataMode,
) {
  const app = new OpenAPIHono<GatewayEnv>();
  const answering = { sql: deps.db.sql, cache: deps.statistics };
  const operation = workflowOperationsOn(app, deps, mode);

  operation(
    {
      method: "get",
      path: "/stats/apps",
      operationId: "getStatsApps",
      summary: "8.1 The apps the caller sees, grouped by main tag and counted, with their processes started",
      tag: "statistics",
      scope: "stats",
      kinds: "u/s",
      entity: appGroupSchema,
      entityName: "StatsAppGroup",
    },
    async (_c, caller) => {
      const groups = await statsAppGroups(answering, caller);
      return { entities: groups, total: 0 };
    },
  );

  operation(
    {
      method: "get",
      path: "/stats/app/{id}/processes/status",
      operationId: "getStatsProcessStatus",
      summary:
        "8.2 The processes started between `start` and `finish` (Unix seconds, both included), by status now",
      tag: "statistics",
      scope: "stats",
      kinds: "u/s",
      params: idParam,
      parameters: z.object({
        start: unixTime.default(0),
        finish: unixTime
          .optional()
          .openapi({ description: "default now; before `start`, nothing is counted" }),
      }),
      entity: statusSchema,
      entityName: "StatsProcessStatus",
    },
    async (_c, caller, { params, parameters }) => ({
      entities: [
        await processStatus(answering, caller, params.id, {
          start: parameters.start,
          finish: parameters.finish,
        }),
      ],
    }),
  );

  // 8.3 and 8.4 answer the same periods of a cycle, each with its own numbers.
  const perPeriod = [
    {
      path: "/stats/app/{id}/processes/recent",
      operationId: "getStatsRecentProcesses",
      summary:
        "8.3 Processes started, completed and killed per `cycle` (hour, day, week, month, year: the latest 24, 7, 52, 3, 5)",
      entity: recentSchema,
      entityName: "StatsRecentProcesses",
      answer: recentProcesses,
    },
    {
      path: "/stats/app/{id}/tasks/todo",
      operationId: "getStatsTodoWaiting",
      summary: "8.4 The mean wait (seconds) of the to-dos handled per `cycle`, as 8.3's periods",
      entity: todoSchema,
      entityName: "StatsTodoWaiting",
      answer: todoWaiting,
    },
  ];
  for (const { answer, ...described } of perPeriod) {
    operation(
      {
        method: "get",
        tag: "statistics",
        scope: "stats",
        kinds: "u/s",
        params: idParam,
        parameters: cycleParameters,
        ...described,
      },
      async (_c, caller, { params, parameters }) => ({
        entities: [await answer(answering, caller, params.id, parameters)],
      }),
    );
  }
  return app;
}
