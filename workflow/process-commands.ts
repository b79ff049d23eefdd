import { WorkflowRefusal } from "../contracts/workflow-errors.ts";
import { type Queryable, type Sql, transactionRetryingDeadlocks } from "../runtime/database.ts";
import { timeOrderedId } from "../runtime/time-ordered-id.ts";
import { compiledVersion, type StartableApp, startableApp } from "./app-store.ts";
import { applyWithDirectory } from "./apply-with-directory.ts";
import { directoryLookup } from "./assignees.ts";
import { newProcessState } from "./engine/apply-command.ts";
import type { CompiledWorkflow } from "./engine/compiled-workflow.ts";
import type { EngineCommand } from "./engine/engine-command.ts";
import type { EngineResult } from "./engine/engine-result.ts";
import { checkFormData } from "./form-data.ts";
import type { DecidedCommand } from "./process-journal.ts";
import type { ProcessState, TaskState } from "./process-state.ts";
import {
  type LockTarget,
  lockProcess,
  type ProcessRef,
  type ProcessRow,
  type ProcessWithState,
  readProcess,
  setChildProcess,
  tookPart,
} from "./process-store.ts";
import type { ProfileView } from "./process-view-store.ts";
import {
  isNotAStarter,
  isStaleRevision,
  type ResultTarget,
  type Written,
  writeResult,
  writesInOneStatement,
} from "./result-writer.ts";
import { thingCodes, usePickup } from "./thing-store.ts";

/**
 * The workflow's commands as transactions: each locks its process, lets the engine decide, and
 * writes what it decided before it commits, so its effects are visible when it returns. A process
 * that ends hands the news to its parent; a killed one takes its children with it.
 */

/** Sub-processes nest at most this deep (2.8 returns at most 16 ancestors). */
export const MAX_SUBPROCESS_DEPTH = 16;

function thingStepsOf(workflow: CompiledWorkflow): Set<string> {
  return new Set(
    workflow.definition.graph.nodes
      .filter((node) => node.kind === "task" && node.requiresThing)
      .map((node) => node.code),
  );
}

/** What a command left: the process as written, what the engine decided, and who the answer names. */
export interface Outcome {
  process: ProcessRow;
  result: EngineResult;
  /** Profiles of the people of the task the answer shows. */
  people: Map<string, ProfileView>;
}

/** What the engine decided for a command on a process, with the workflow and clock it decided by. */
interface Decision {
  workflow: CompiledWorkflow;
  now: number;
  result: EngineResult;
  decided: DecidedCommand;
}

async function decide(sql: Queryable, read: ProcessWithState, command: EngineCommand): Promise<Decision> {
  const workflow = await compiledVersion(sql, read.process.versionId);
  return decideOn(sql, read.process.tenantId, workflow, read.state, command);
}

/** The engine's decision, now, with the directory's questions looked up in the tenant's records. */
async function decideOn(
  sql: Queryable,
  tenantId: string,
  workflow: CompiledWorkflow,
  state: ProcessState,
  command: EngineCommand,
): Promise<Decision> {
  const now = Date.now();
  const lookUp = directoryLookup(sql, tenantId);
  const { result, decided } = await applyWithDirectory(
    workflow,
    state,
    command,
    { now, newId: timeOrderedId },
    lookUp,
  );
  return { workflow, now, result, decided };
}

/**
 * Applies a command to a locked process and writes the outcome, then what follows from it;
 * `shownTask` is the task the caller answers with, whose people are read with the write.
 */
async function run(
  sql: Queryable,
  locked: ProcessWithState,
  command: EngineCommand,
  options: { shownTask?: string | undefined; endsTransaction?: boolean | undefined } = {},
): Promise<Outcome> {
  const { process } = locked;
  const decision = await decide(sql, locked, command);
  const { result } = decision;
  const followed = needsFollowUp(process, result);
  const written = await write(sql, { process }, decision, {
    shownTask: options.shownTask,
    commits: options.endsTransaction && !followed,
  });
  if (followed) await followUp(sql, written.process, result);
  return { process: written.process, result, people: written.people };
}

function write(
  sql: Queryable,
  target: ResultTarget,
  { workflow, result, now, decided }: Decision,
  options: {
    shownTask?: string | undefined;
    commits?: boolean | undefined;
    starter?: string | undefined;
  } = {},
): Promise<Written> {
  const appId = "process" in target ? target.process.appId : target.newProcess.appId;
  const shown = result.state.tasks.find((task) => task.id === options.shownTask);
  return writeResult(sql, target, result, {
    delegation: { appId, now: new Date(now) },
    thingSteps: thingStepsOf(workflow),
    people: shown ? [...shown.candidates, shown.handler, shown.actualUser] : [],
    commits: options.commits ?? false,
    decided,
    starter: options.starter,
  });
}

async function lockedOrRefused(
  sql: Queryable,
  tenantId: string,
  test: boolean,
  target: LockTarget,
  options: { handlerFor?: string | undefined } = {},
): Promise<ProcessWithState> {
  const locked = await lockProcess(sql, tenantId, test, target, options);
  if (locked) return locked;
  throw "task" in target
    ? new WorkflowRefusal("TASK_NOT_FOUND", `no task ${target.task}`)
    : new WorkflowRefusal("PROCESS_NOT_FOUND", "no such process");
}

/** Whether the command ended a sub-process, whose parent then hears of it. */
function endsSubprocess(process: ProcessRow, result: EngineResult): boolean {
  return (
    (result.state.status === "done" || result.state.status === "killed") &&
    process.parentProcessId !== null &&
    process.parentTaskId !== null &&
    result.events.some((event) => event.type === "process.ended")
  );
}

/** Whether a command leaves work for `followUp`: sub-processes to start or kill, a parent to tell. */
function needsFollowUp(process: ProcessRow, result: EngineResult): boolean {
  return result.children.length > 0 || result.childrenToKill.length > 0 || endsSubprocess(process, result);
}

/** Starts the sub-processes a command entered, kills the children of a killed process, tells a parent its child ended. */
async function followUp(sql: Queryable, process: ProcessRow, result: EngineResult): Promise<void> {
  for (const child of result.children) await startChild(sql, process, child.task, child.workflow, child.data);
  for (const childId of result.childrenToKill) {
    const child = await lockProcess(sql, process.tenantId, process.test, { id: childId });
    if (child && (child.process.status === "doing" || child.process.status === "suspended")) {
      await run(sql, child, { kind: "kill", user: null, remark: "its parent process was killed" });
    }
  }
  if (endsSubprocess(process, result)) {
    const parent = await lockProcess(sql, process.tenantId, process.test, { id: process.parentProcessId! });
    if (parent && (parent.process.status === "doing" || parent.process.status === "suspended")) {
      await run(sql, parent, {
        kind: "childEnded",
        task: process.parentTaskId!,
        status: process.status as "done" | "killed",
      });
    }
  }
}

async function startChild(
  sql: Queryable,
  parent: ProcessRow,
  taskId: string,
  workflowCode: string,
  data: Record<string, unknown>,
): Promise<void> {
  if (parent.depth + 1 > MAX_SUBPROCESS_DEPTH) {
    throw new WorkflowRefusal(
      "SUBPROCESS_TOO_DEEP",
      `sub-processes nest at most ${MAX_SUBPROCESS_DEPTH} levels`,
    );
  }
  const app = await startableApp(sql, parent.tenantId, workflowCode, parent.test);
  if (!app)
    throw new WorkflowRefusal("APP_NOT_FOUND", `the sub-process workflow ${workflowCode} is not deployed`);
  const started = await startProcess(sql, {
    tenantId: parent.tenantId,
    test: parent.test,
    app,
    ownerId: parent.ownerId,
    actualUserId: null,
    data,
    businessId: parent.businessId,
    parent: { processId: parent.id, taskId, depth: parent.depth + 1 },
  });
  await setChildProcess(sql, taskId, started.process.id);
  // The child's form is the parent's data: its first step is handled for the owner at once.
  await run(sql, started, {
    kind: "handle",
    task: started.firstTask.id,
    handler: parent.ownerId,
    actualUser: null,
    actionCode: started.workflow.actionsOf(started.firstTask.node)[0]!.code,
  });
}

export interface StartInput {
  tenantId: string;
  test: boolean;
  app: StartableApp;
  ownerId: string;
  actualUserId: string | null;
  firstAssignee?: string | undefined;
  entrance?: string | undefined;
  data: Record<string, unknown>;
  businessId: string | null;
  parent?: { processId: string; taskId: string; depth: number };
  /** The user who must be one of the app's starters (3.2); a sub-process is started by its parent. */
  starter?: string | undefined;
}

/** 3.2: a new process of the app's online version for the mode, its first step in the owner's to-do. */
export async function startProcess(
  sql: Queryable,
  input: StartInput,
): Promise<{
  process: ProcessRow;
  state: ProcessState;
  firstTask: TaskState;
  workflow: CompiledWorkflow;
  people: Map<string, ProfileView>;
}> {
  if (!input.app.ready)
    throw new WorkflowRefusal("APP_NOT_STARTABLE", `the app ${input.app.code} is not ready to be started`);
  const versionId = input.app.startableVersionId;
  if (!versionId) {
    throw new WorkflowRefusal(
      "APP_NOT_STARTABLE",
      `the app ${input.app.code} has no version online for ${input.test ? "test" : "formal"} data`,
    );
  }
  const workflow = await compiledVersion(sql, versionId);
  checkFormData(workflow.definition.schema.fields, input.data);
  const decision = await decideOn(sql, input.tenantId, workflow, newProcessState(input.ownerId, input.data), {
    kind: "start",
    owner: input.ownerId,
    firstAssignee: input.firstAssignee,
    entrance: input.entrance,
    data: input.data,
    actor: input.actualUserId ?? input.ownerId,
  });
  const newProcess = {
    id: timeOrderedId(),
    tenantId: input.tenantId,
    test: input.test,
    appId: input.app.id,
    versionId,
    name: input.app.name,
    tags: input.app.tags,
    ownerId: input.ownerId,
    actualUserId: input.actualUserId,
    businessId: input.businessId,
    things: thingCodes(workflow.definition.schema.fields, input.data),
    parentProcessId: input.parent?.processId ?? null,
    parentTaskId: input.parent?.taskId ?? null,
    depth: input.parent?.depth ?? 0,
  };
  const { result } = decision;
  const firstTask = result.tasksCreated[0]!;
  const { process, people } = await write(sql, { newProcess }, decision, {
    shownTask: firstTask.id,
    starter: input.starter,
  }).catch((error: unknown) => {
    if (isNotAStarter(error))
      throw new WorkflowRefusal("NOT_A_STARTER", `the user may not start the app ${input.app.code}`);
    throw error;
  });
  return { process, state: result.state, firstTask, workflow, people };
}

/** Who acts: a user (a user token's, or the one a sys token names), or the system user. */
export type Actor = { user: string } | { system: true };

export interface HandleInput {
  tenantId: string;
  test: boolean;
  taskId: string;
  actor: Actor;
  /** A sys token: it may handle a step that allows the system user for any user it names. */
  sys: boolean;
  actionId?: number | undefined;
  actionCode?: string | undefined;
  remark?: string | undefined;
  thing?: string | undefined;
  nextSteps?: string[] | undefined;
  nextUsers?: string[] | undefined;
  /** The user a pickup code names: they become the handler, the actor the actual user. */
  onBehalfOf?: string | undefined;
  /** The only app whose tasks the caller may handle (a Workflow application's token). */
  appId?: string | undefined;
  /** A pickup code: spent on the item, its user (if it names one) becomes the handler. */
  pickup?: string | undefined;
  /** The caller sends nothing after the command: its write carries the transaction's commit. */
  endsTransaction?: boolean | undefined;
}

/**
 * 3.1: handles a to-do task once. The actor handles it as a candidate, or as a delegate of the
 * candidate who entrusted it to them (then the candidate is the handler and the actor the actual
 * user). A second or concurrent submit finds the task handled and is refused.
 */
export async function handleTask(sql: Queryable, input: HandleInput): Promise<Outcome & { task: TaskState }> {
  const locked = await lockedOrRefused(
    sql,
    input.tenantId,
    input.test,
    { task: input.taskId },
    handlerFor(input),
  );
  checkOwnApp(locked.process, input.appId);
  let thing = input.thing;
  let onBehalfOf = input.onBehalfOf;
  if (input.pickup) {
    thing ??= locked.process.things.length === 1 ? locked.process.things[0] : undefined;
    if (!thing) throw new WorkflowRefusal("THING_REQUIRED", "thing: name the item the pickup code is for");
    // A pickup code stands for its user on the processes of its item only, not on any of their tasks.
    if (!locked.process.things.includes(thing))
      throw new WorkflowRefusal("THING_NOT_FOUND", `the process's data names no item ${thing}`);
    const actor = "user" in input.actor ? input.actor.user : null;
    onBehalfOf = (await usePickup(sql, input.tenantId, input.test, input.pickup, thing, actor)) ?? onBehalfOf;
  }
  const outcome = await run(sql, locked, handleCommand(locked, { ...input, thing, onBehalfOf }), {
    shownTask: input.taskId,
    endsTransaction: input.endsTransaction,
  });
  return { ...outcome, task: outcome.result.state.tasks.find((task) => task.id === input.taskId)! };
}

/**
 * 3.1 on the pool: the task's process is read without a lock and the outcome written in one
 * statement that commits on its own, provided the process has not changed since (its revision).
 * A command whose outcome takes more than one statement (sub-processes, a pickup code, to-do rows
 * written again), or that another command overtook, runs again in a transaction holding the lock.
 */
export async function submitTask(pool: Sql, input: HandleInput): Promise<Outcome & { task: TaskState }> {
  const unlocked = input.pickup ? undefined : await handleUnlocked(pool, input);
  return (
    unlocked ??
    transactionRetryingDeadlocks(pool, (tx) => handleTask(tx, { ...input, endsTransaction: true }))
  );
}

async function handleUnlocked(
  sql: Queryable,
  input: HandleInput,
): Promise<(Outcome & { task: TaskState }) | undefined> {
  const read = await readProcess(sql, input.tenantId, input.test, { task: input.taskId }, handlerFor(input));
  if (!read) throw new WorkflowRefusal("TASK_NOT_FOUND", `no task ${input.taskId}`);
  checkOwnApp(read.process, input.appId);
  const decision = await decide(sql, read, handleCommand(read, input));
  const { result } = decision;
  const target = { process: read.process };
  if (needsFollowUp(read.process, result) || !writesInOneStatement(target, result)) return undefined;
  try {
    const written = await write(sql, target, decision, { shownTask: input.taskId });
    const task = result.state.tasks.find((candidate) => candidate.id === input.taskId)!;
    return { process: written.process, result, people: written.people, task };
  } catch (error) {
    if (isStaleRevision(error)) return undefined;
    throw error;
  }
}

function handlerFor(input: HandleInput): { handlerFor?: string | undefined } {
  return { handlerFor: "user" in input.actor ? input.actor.user : undefined };
}

/** `ownAppId`, a Workflow application token's own app, confines a command to that workflow. */
function checkOwnApp(process: ProcessRow, ownAppId: string | undefined): void {
  if (ownAppId && process.appId !== ownAppId) {
    throw new WorkflowRefusal("WORKFLOW_MISMATCH", "the application's token acts on its own workflow only");
  }
}

/** The engine's command for 3.1 on the process as read: who handles the task, and how. */
function handleCommand(read: ProcessWithState, input: HandleInput): EngineCommand {
  let handler: string | null = null;
  let actualUser: string | null = null;
  if ("user" in input.actor) {
    handler = input.onBehalfOf ?? read.handler!;
    actualUser = input.actor.user;
  } else if (input.onBehalfOf) {
    handler = input.onBehalfOf;
  }
  return {
    kind: "handle",
    task: input.taskId,
    handler,
    actualUser,
    actionId: input.actionId,
    actionCode: input.actionCode,
    remark: input.remark,
    thing: input.thing,
    nextSteps: input.nextSteps,
    nextUsers: input.nextUsers,
    asSystem: input.sys,
  };
}

/** A lifecycle command on a process named by GUID or serial number. */
export async function commandProcess(
  sql: Queryable,
  tenantId: string,
  test: boolean,
  ref: ProcessRef,
  command: (process: ProcessRow) => EngineCommand,
): Promise<Outcome> {
  const locked = await lockedOrRefused(sql, tenantId, test, ref);
  return run(sql, locked, command(locked.process));
}

/**
 * A command on the process of a task (withdraw, reassign), answered with that task. With
 * `participant`, a user who took no part in the process is told the task does not exist, as
 * another tenant's would be: what the command would refuse says nothing of a stranger's process.
 */
export async function commandTask(
  sql: Queryable,
  tenantId: string,
  test: boolean,
  taskId: string,
  command: EngineCommand,
  ownAppId?: string,
  participant?: string,
): Promise<Outcome & { task: TaskState }> {
  const locked = await lockedOrRefused(sql, tenantId, test, { task: taskId });
  if (participant !== undefined && !(await tookPart(sql, locked.process.id, participant)))
    throw new WorkflowRefusal("TASK_NOT_FOUND", `no task ${taskId}`);
  checkOwnApp(locked.process, ownAppId);
  const outcome = await run(sql, locked, command, { shownTask: taskId });
  return { ...outcome, task: outcome.result.state.tasks.find((task) => task.id === taskId)! };
}
