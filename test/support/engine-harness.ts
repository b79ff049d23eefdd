import type { WorkflowDefinitionInput } from "../../contracts/workflow-definition.ts";
import { workflowDefinitionSchema } from "../../contracts/workflow-definition.ts";
import { definitionProblems } from "../../contracts/workflow-definition-rules.ts";
import { applyWithDirectory, type DirectoryLookup } from "../../workflow/apply-with-directory.ts";
import { newProcessState } from "../../workflow/engine/apply-command.ts";
import { CompiledWorkflow } from "../../workflow/engine/compiled-workflow.ts";
import type { EngineCommand } from "../../workflow/engine/engine-command.ts";
import type { EngineResult } from "../../workflow/engine/engine-result.ts";
import { type JournalEntry, replayJournal, stateDifference } from "../../workflow/process-journal.ts";
import type { ProcessState, TaskState } from "../../workflow/process-state.ts";

/** Who holds which position (`dept:post`), for answering the engine's directory questions in memory. */
export type Directory = Record<string, string[]>;

/**
 * Answers the engine's directory questions the way the platform's directory does, from an
 * in-memory one in which every account exists and is its own user id.
 */
export function memoryDirectory(directory: Directory): DirectoryLookup {
  return (question) => {
    const ownDepts = Object.entries(directory)
      .filter(([, holders]) => holders.includes(question.initiator))
      .map(([position]) => position.split(":")[0]);
    const holders: string[] = [];
    for (const [position, users] of Object.entries(directory)) {
      const [dept, post] = position.split(":");
      const matches = (wanted: string, part: string | undefined) => wanted === "*" || wanted === part;
      const held =
        question.positions.some((pattern) => matches(pattern.dept, dept) && matches(pattern.post, post)) ||
        (ownDepts.includes(dept) && question.initiatorPosts.some((wanted) => matches(wanted, post)));
      if (held) holders.push(...users);
    }
    return [...question.codes, ...holders];
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
  readonly journal: JournalEntry[] = [];
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
    const context = { now: this.now, newId: () => `t${++this.ids}` };
    const lookUp = memoryDirectory(this.directory);
    const { result, decided } = await applyWithDirectory(this.workflow, this.state, command, context, lookUp);
    this.state = result.state;
    this.results.push(result);
    this.journal.push({ revision: this.journal.length, kind: "command", decided });
    this.checkReplay();
    return result;
  }

  /** Every command's journal, replayed from the start, gives the state the commands left. */
  private checkReplay(): void {
    const children = new Map(this.state.tasks.map((task) => [task.id, task.child]));
    const replayed = replayJournal(this.workflow, this.journal, (task) => children.get(task) ?? null);
    if ("failure" in replayed) throw new Error(`the journal does not replay: ${replayed.failure}`);
    const difference = stateDifference(replayed.state, this.state);
    if (difference) throw new Error(`the journal replays to another state: ${difference}`);
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
