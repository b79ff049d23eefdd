import { finish, type Run, requireStatus } from "./run-state.ts";

/** Ends a process at once: its open tasks and branches are cancelled, its sub-processes killed with it. */
export function kill(run: Run, user: string | null, remark?: string): void {
  if (run.state.status === "done" || run.state.status === "killed") requireStatus(run, "doing");
  for (const task of run.state.tasks) run.cancel(task);
  for (const branch of run.state.branches)
    if (branch.status === "active") run.changeBranch(branch, { status: "cancelled" });
  finish(run, "killed");
  run.activity({
    tags: "INSTANCE_KILL",
    level: "WARNING",
    description: remark ? `killed: ${remark}` : "killed",
    user,
    task: null,
  });
}
