import { WorkflowRefusal } from "../../contracts/workflow-errors.ts";
import { dynamicIndexes, type ProcessState, type TaskState } from "../process-state.ts";
import type { CompiledWorkflow } from "./compiled-workflow.ts";

/** The task steps reachable from a step through exclusive choices only: where nextSteps may jump. */
export function routableSteps(workflow: CompiledWorkflow, from: string): Set<string> {
  const steps = new Set<string>();
  const seen = new Set<string>();
  const queue = (workflow.outgoing.get(from) ?? []).map(({ edge }) => edge.to);
  while (queue.length > 0) {
    const code = queue.pop()!;
    if (seen.has(code)) continue;
    seen.add(code);
    const node = workflow.node(code);
    if (node.kind === "task") steps.add(code);
    else if (node.kind === "exclusive")
      queue.push(...(workflow.outgoing.get(code) ?? []).map(({ edge }) => edge.to));
  }
  return steps;
}

/** The to-do task of a step that 4.5's `submit` addresses, by step code and `splitPath`. */
export function taskOfStep(
  workflow: CompiledWorkflow,
  state: ProcessState,
  step: string,
  splitPath?: string,
): TaskState {
  let open = state.tasks.filter((task) => task.node === step && task.status === "todo");
  if (splitPath !== undefined) {
    if (!/^\d+(\/\d+)*$/.test(splitPath))
      throw new WorkflowRefusal("SPLIT_PATH_INVALID", "splitPath is written x or x/y");
    const wanted = splitPath.split("/").map(Number);
    open = open.filter((task) => {
      const indexes = dynamicIndexes(task.branch, workflow.dynamicSplits);
      return indexes.length === wanted.length && indexes.every((index, i) => index === wanted[i]);
    });
  }
  if (open.length !== 1) {
    throw new WorkflowRefusal(
      open.length === 0 ? "TASK_NOT_FOUND" : "STEP_NOT_UNIQUE",
      open.length === 0
        ? `no to-do task at step ${step}`
        : `${open.length} to-do tasks at step ${step}: give splitPath`,
    );
  }
  return open[0]!;
}
