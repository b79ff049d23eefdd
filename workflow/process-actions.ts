import { WorkflowRefusal } from "../contracts/workflow-errors.ts";
import { userIdsByCodes } from "../directory/positions.ts";
import type { Queryable } from "../runtime/database.ts";
import { tagNamed } from "../tenant/tags.ts";
import { compiledVersion } from "./app-store.ts";
import { taskOfStep } from "./engine/engine-queries.ts";
import { commandProcess, handleTask } from "./process-commands.ts";
import {
  addProcessTag,
  changeCopies,
  lockProcess,
  othersTookPart,
  type ProcessRow,
  updateProcessHeader,
} from "./process-store.ts";
import { recordActivity } from "./result-writer.ts";

export const PROCESS_ACTIONS = [
  "rate",
  "submit",
  "kill",
  "suspend",
  "resume",
  "compensate",
  "archive",
  "tag",
  "mark",
  "read",
  "unread",
  "dismiss",
] as const;
export type ProcessAction = (typeof PROCESS_ACTIONS)[number];

export interface ProcessActionInput {
  action: ProcessAction;
  rating?: number | undefined;
  remark?: string | undefined;
  stepCode?: string | undefined;
  actionCode?: string | undefined;
  nextSteps?: string[] | undefined;
  nextUsers?: string[] | undefined;
  splitPath?: string | undefined;
  thing?: string | undefined;
  priority?: string | undefined;
  /** 4.5 `tag`: the name or id of one of the tenant's tags. */
  tag?: string | undefined;
  /** 4.5 `dismiss`: `*` removes every user's copy. */
  everyone?: boolean | undefined;
}

/** Who acts: an administrator's sys token (4.5, optionally naming a user) or a user (3.3). */
export interface ProcessActor {
  administrator: boolean;
  userId: string | undefined;
}

/**
 * 3.3 and 4.5: what may be done to a process besides handling its tasks one by one. An
 * administrator (a sys token) may do any action to any process of its tenant; a user acts on a
 * process they took part in: rating, killing, suspending, resuming, compensating, archiving and
 * marking and tagging (with one of the tenant's tags) are the initiator's, read, unread and
 * dismiss act on the user's own copy.
 */
export async function actOnProcess(
  sql: Queryable,
  actor: ProcessActor,
  process: ProcessRow,
  input: ProcessActionInput,
): Promise<void> {
  const { action } = input;
  const initiatorOnly = ["rate", "kill", "suspend", "resume", "compensate", "archive", "mark", "tag"];
  if (!actor.administrator && initiatorOnly.includes(action) && actor.userId !== process.ownerId) {
    throw new WorkflowRefusal("NOT_THE_INITIATOR", `only the initiator may ${action} the process`);
  }
  const ref = { id: process.id };
  const user = actor.userId ?? null;
  switch (action) {
    case "rate": {
      if (process.status !== "done" && process.status !== "killed")
        throw new WorkflowRefusal("PROCESS_NOT_ENDED", "a process is rated once it has ended");
      if (input.rating === undefined) throw new WorkflowRefusal("DATA_INVALID", "rating: 0 to 5 stars");
      await updateProcessHeader(sql, process.id, { rating: input.rating, review: input.remark });
      return;
    }
    case "submit": {
      if (!actor.administrator)
        throw new WorkflowRefusal("NOT_SUPPORTED", "a user handles a task with 3.1; submit is 4.5's");
      if (!input.stepCode || !input.actionCode)
        throw new WorkflowRefusal("DATA_INVALID", "stepCode and actionCode name the task and the action");
      const workflow = await compiledVersion(sql, process.versionId);
      const node = workflow.nodes.get(input.stepCode);
      if (node?.kind === "task" && !node.allowSystemUser) {
        throw new WorkflowRefusal(
          "SYSTEM_USER_NOT_ALLOWED",
          `step ${input.stepCode} is not open to 4.5's submit`,
        );
      }
      const locked = await lockProcess(sql, process.tenantId, process.test, ref);
      if (!locked) throw new WorkflowRefusal("PROCESS_NOT_FOUND", "no such process");
      const task = taskOfStep(workflow, locked.state, input.stepCode, input.splitPath);
      // A user named twice is one user; every name must be found.
      const named = input.nextUsers ? [...new Set(input.nextUsers)] : undefined;
      const nextUsers = named ? await userIdsByCodes(sql, process.tenantId, named) : undefined;
      if (named && nextUsers?.length !== named.length)
        throw new WorkflowRefusal("USER_NOT_FOUND", "nextUsers names a user who does not exist");
      await handleTask(sql, {
        tenantId: process.tenantId,
        test: process.test,
        taskId: task.id,
        actor: actor.userId ? { user: actor.userId } : { system: true },
        sys: true,
        actionCode: input.actionCode,
        remark: input.remark,
        thing: input.thing,
        nextSteps: input.nextSteps,
        nextUsers,
      });
      return;
    }
    case "kill":
      await commandProcess(sql, process.tenantId, process.test, ref, () => ({
        kind: "kill",
        user,
        remark: input.remark,
      }));
      return;
    case "suspend":
      await commandProcess(sql, process.tenantId, process.test, ref, () => ({
        kind: "suspend",
        user,
        remark: input.remark,
      }));
      return;
    case "resume":
      await commandProcess(sql, process.tenantId, process.test, ref, () => ({ kind: "resume", user }));
      return;
    case "compensate":
      await recordActivity(
        sql,
        process,
        {
          category: "MESSENGER",
          level: "INFO",
          tags: "COMPENSATE",
          description: input.remark ? `compensate: ${input.remark}` : "compensate",
          user,
          task: null,
        },
        { type: "compensate" },
      );
      return;
    case "archive":
      if (await othersTookPart(sql, process))
        throw new WorkflowRefusal("OTHERS_TOOK_PART", "a process others took part in cannot be archived");
      await updateProcessHeader(sql, process.id, { archived: true });
      return;
    case "mark":
      if (!input.priority)
        throw new WorkflowRefusal("DATA_INVALID", "priority: low, normal, important or critical");
      await updateProcessHeader(sql, process.id, { priority: input.priority });
      return;
    case "read":
    case "unread":
    case "dismiss": {
      const who =
        input.everyone && action === "dismiss" && actor.administrator
          ? "all"
          : actor.userId
            ? [actor.userId]
            : undefined;
      if (!who) throw new WorkflowRefusal("USER_NOT_FOUND", "userId: whose copy");
      await changeCopies(sql, process.id, who, action);
      return;
    }
    case "tag": {
      if (!input.tag)
        throw new WorkflowRefusal("DATA_INVALID", "tag: the name or id of one of the tenant's tags");
      const tag = await tagNamed(sql, process.tenantId, input.tag);
      await addProcessTag(sql, process.id, tag.name);
      return;
    }
  }
}
