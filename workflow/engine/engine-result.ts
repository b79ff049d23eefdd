import type { BranchState, ProcessState, TaskState } from "../process-state.ts";

export type ActivityTag = "INSTANCE_KILL" | "INSTANCE_WITHDRAW" | "INSTANCE_ADMIN";

/** A line of the process's activity log. */
export interface ActivityRecord {
  category: "INSTANCE" | "MESSENGER" | "NOTIFICATION" | "DATABINDING";
  level: "VERBOSE" | "INFO" | "WARNING";
  tags: ActivityTag | string;
  description: string;
  user: string | null;
  task: string | null;
  /** About a step marked hidden: shown only where hidden steps are. */
  hidden?: boolean;
}

/** An outbox event: what push, notifications and messenger callbacks learn of. */
export type EngineEvent =
  | { type: "todo.created"; task: string; users: string[] }
  | { type: "todo.withdrawn"; task: string; users: string[] }
  | { type: "todo.done"; task: string; user: string }
  | { type: "cc"; task: string | null; node: string; users: string[] }
  | { type: "process.started" }
  | { type: "process.ended"; status: "done" | "killed" }
  | { type: "process.suspended" }
  | { type: "process.resumed" }
  | { type: "compensate" }
  | { type: "subprocess.ended"; task: string; status: "done" | "killed" }
  | { type: "task.reassigned"; task: string; users: string[] };

/** A sub-process a command entered: the child process to start for its task. */
export interface ChildToStart {
  task: string;
  workflow: string;
  data: Record<string, unknown>;
}

/** What a command does: rows to insert or update, and what to record and start. */
export interface EngineResult {
  state: ProcessState;
  tasksCreated: TaskState[];
  tasksChanged: TaskState[];
  branchesCreated: BranchState[];
  branchesChanged: BranchState[];
  activities: ActivityRecord[];
  events: EngineEvent[];
  /** Subprocess steps entered: a child process to start for each. */
  children: ChildToStart[];
  /** Child processes to kill with this one. */
  childrenToKill: string[];
}
