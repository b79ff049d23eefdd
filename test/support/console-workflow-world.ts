import {
  type WorkflowDefinitionInput,
  workflowDefinitionSchema,
} from "../../contracts/workflow-definition.ts";
import type { Sql } from "../../runtime/database.ts";
import { startableApp } from "../../workflow/app-store.ts";
import { exportBpmn } from "../../workflow/bpmn/bpmn-export.ts";
import { handleTask, startProcess } from "../../workflow/process-commands.ts";
import { consoleCookie } from "./console-session.ts";
import { startTestPlatform, type TestMode, type TestPlatform, withBootstrap } from "./platform.ts";

export const WORLD_ADMIN_TOKEN = "console-workflows-operator-token-0123456789";
export const TENANT = "example.edu";
/** The app of `reviewDefinition`, online for formal data. */
export const APP = "reviews";

/** A workflow of one step, `review`, handled by the accounts given, then `done`. */
export function reviewDefinition(accounts: string[], extraStep?: string): WorkflowDefinitionInput {
  const middle = extraStep ? [{ kind: "task" as const, code: extraStep, assignees: [{ accounts }] }] : [];
  return {
    schema: { fields: [{ name: "reason", type: "text", label: "Reason" }] },
    graph: {
      nodes: [
        { kind: "start", code: "apply" },
        {
          kind: "task",
          code: "review",
          name: "Review",
          assignees: [{ accounts }],
          actions: [{ id: 1, code: "approve", name: "Approve" }],
        },
        ...middle,
        { kind: "end", code: "done" },
      ],
      edges: extraStep
        ? [
            { from: "apply", to: "review" },
            { from: "review", to: extraStep, action: "approve" },
            { from: extraStep, to: "done" },
          ]
        : [
            { from: "apply", to: "review" },
            { from: "review", to: "done", action: "approve" },
          ],
    },
  };
}

/** The BPMN document the platform exports for a definition: what a modeler would open and save. */
export function bpmnOf(definition: WorkflowDefinitionInput, id: string): Promise<string> {
  return exportBpmn(workflowDefinitionSchema.parse(definition), null, id);
}

/** A BPMN document with a timer the engine cannot run, which the import refuses naming `Timer_1`. */
export function withTimer(bpmn: string): string {
  return bpmn.replace(
    /(<bpmn:process[^>]*>)/,
    '$1<bpmn:intermediateCatchEvent id="Timer_1"><bpmn:timerEventDefinition /></bpmn:intermediateCatchEvent>',
  );
}

/** A platform with the tenant, three users and the app `APP` online, and a signed-in console cookie. */
export interface ConsoleWorkflowWorld {
  platform: TestPlatform;
  sql: Sql;
  cookie: string;
  close(): Promise<void>;
}

export async function consoleWorkflowWorld(mode: TestMode): Promise<ConsoleWorkflowWorld> {
  const prepared = await mode.prepare();
  let platform: TestPlatform | undefined;
  try {
    platform = await startTestPlatform(
      {
        ...(await withBootstrap(prepared.env, {
          tenants: [{ domain: TENANT, name: "Example University" }],
          users: [
            { tenant: TENANT, account: "dana", name: "Dana Scully" },
            { tenant: TENANT, account: "fox", name: "Fox Mulder" },
            { tenant: TENANT, account: "walter", name: "Walter Skinner" },
          ],
          workflows: [
            {
              tenant: TENANT,
              code: APP,
              name: "Review",
              versions: [{ online: true, definition: reviewDefinition(["dana"]) }],
            },
          ],
        })),
        ADMIN_TOKEN: WORLD_ADMIN_TOKEN,
      },
      "http only",
    );
    const cookie = await consoleCookie(platform.url, WORLD_ADMIN_TOKEN);
    const started = platform;
    return {
      platform: started,
      sql: started.running.platform.db.sql,
      cookie,
      async close() {
        await started.stop();
        await prepared.cleanup();
      },
    };
  } catch (error) {
    await platform?.stop();
    await prepared.cleanup();
    throw error;
  }
}

/** Starts a process of `APP` for `account` with `data`, its first step submitted; answers its id and serial number. */
export async function startReview(
  sql: Sql,
  account: string,
  data: Record<string, unknown> = {},
): Promise<{ id: string; entry: number }> {
  const [user] = await sql<{ id: string; tenantId: string }[]>`
    select id, tenant_id as "tenantId" from users where account = ${account}`;
  const app = await startableApp(sql, user!.tenantId, APP, false);
  if (!app) throw new Error(`the app ${APP} is not startable`);
  return sql.begin(async (tx) => {
    const started = await startProcess(tx, {
      tenantId: user!.tenantId,
      test: false,
      app,
      ownerId: user!.id,
      actualUserId: null,
      data,
      businessId: null,
    });
    await handleTask(tx, {
      tenantId: user!.tenantId,
      test: false,
      taskId: started.firstTask.id,
      actor: { user: user!.id },
      sys: false,
    });
    return { id: started.process.id, entry: started.process.entry };
  });
}

/** The CSRF token of a console page's forms. */
export function csrfOf(html: string): string {
  const found = /name="csrf" value="([^"]+)"/.exec(html);
  if (!found) throw new Error("no CSRF field on the page");
  return found[1]!;
}
