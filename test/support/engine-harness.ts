import type { Assignee, WorkflowDefinitionInput } from "../../contracts/workflow-definition.ts";
import { workflowDefinitionSchema } from "../../contracts/workflow-definition.ts";
import { definitionProblems } from "../../contracts/workflow-definition-rules.ts";
import { INITIATOR_DEPARTMENT } from "../../workflow/assignees.ts";
import { applyCommand, newProcessState } from "../../workflow/engine/apply-command.ts";
import { CompiledWorkflow } from "../../workflow/engine/compiled-workflow.ts";
import type { EngineCommand } from "../../workflow/engine/engine-command.ts";
import type { EngineResult } from "../../workflow/engine/engine-result.ts";
import type { AssignmentFacts } from "../../workflow/engine/run-state.ts";
import type { ProcessState, TaskState } from "../../workflow/process-state.ts";

/** Who holds which position (`dept:post`), for resolving assignees in memory. */
export type Directory = Record<string, string[]>;

/** Resolves assignee rules the way the platform does, against an in-memory directory. */
export function memoryResolver(directory: Directory) {
  return (assignees: readonly Assignee[], facts: AssignmentFacts): string[] => {
    const users: string[] = [];
    for (const assignee of assignees) {
      if ("position" in assignee) {
        const [dept, post] = assignee.position.split(":");
        const ownDepts = Object.entries(directory)
          .filter(([, holders]) => holders.includes(facts.owner))
          .map(([position]) => position.split(":")[0]);
        for (const [position, holders] of Object.entries(directory)) {
          const [d, p] = position.split(":");
          const deptMatches =
            dept === "*" || dept === d || (dept === INITIATOR_DEPARTMENT && ownDepts.includes(d));
          if (deptMatches && (post === "*" || post === p)) users.push(...holders);
        }
      } else if ("accounts" in assignee) users.push(...assignee.accounts);
      else if ("initiator" in assignee) users.push(facts.owner);
      else if ("handlerOf" in assignee) {
        const handler = facts.handlers.get(assignee.handlerOf);
        if (handler) users.push(handler);
      } else {
        const value = facts.data[assignee.field];
        if (typeof value === "string") users.push(value);
        else if (Array.isArray(value))
          users.push(...value.filter((item): item is string => typeof item === "string"));
      }
    }
    return [...new Set(users)];
  };
}

/** A definition parsed and checked; a broken one fails the test that builds it. */
export function compile(input: WorkflowDefinitionInput): CompiledWorkflow {
  const definition = workflowDefinitionSchema.parse(input);
  const problems = definitionProblems(definition);
  if (problems.length > 0) throw new Error(problems.map((problem) => problem.message).join("\n"));
  return new CompiledWorkflow(definition);
}

/** One process run in memory: each command applied to the state the last one left. */
export class MemoryProcess {
  state: ProcessState;
  readonly results: EngineResult[] = [];
  private ids = 0;
  now = 1_700_000_000_000;

  constructor(
    readonly workflow: CompiledWorkflow,
    readonly directory: Directory,
    owner: string,
    data: Record<string, unknown> = {},
  ) {
    this.state = newProcessState(owner, data);
  }

  async apply(command: EngineCommand): Promise<EngineResult> {
    this.now += 1000;
    const resolve = memoryResolver(this.directory);
    const result = await applyCommand(this.workflow, this.state, command, {
      now: this.now,
      newId: () => `t${++this.ids}`,
      resolve: async (assignees, facts) => resolve(assignees, facts),
    });
    this.state = result.state;
    this.results.push(result);
    return result;
  }

  start(options: { entrance?: string } = {}): Promise<EngineResult> {
    return this.apply({
      kind: "start",
      owner: this.state.owner,
      data: this.state.data,
      actor: this.state.owner,
      ...options,
    });
  }

  /** The to-do tasks, by step code. */
  todo(step?: string): TaskState[] {
    return this.state.tasks.filter(
      (task) => task.status === "todo" && (step === undefined || task.node === step),
    );
  }

  /** Handles the only to-do task of a step as its first candidate. */
  async handleStep(
    step: string,
    actionCode?: string,
    extra: Partial<Extract<EngineCommand, { kind: "handle" }>> = {},
  ) {
    const tasks = this.todo(step);
    if (tasks.length !== 1) throw new Error(`${tasks.length} to-do tasks at ${step}`);
    const task = tasks[0]!;
    return this.apply({
      kind: "handle",
      task: task.id,
      handler: task.candidates[0]!,
      actualUser: null,
      actionCode,
      ...extra,
    });
  }
}
