/**
 * A process as the engine sees it: the rows of one instance (its tasks and the branches of its
 * parallel paths) and its data. The store loads it, the engine returns what to write, the store
 * writes that in the same transaction; nothing here knows of SQL.
 */

export type ProcessStatus = "doing" | "suspended" | "done" | "killed";

/**
 * `todo`: waiting for a candidate; `waiting`: a later member of a sequential countersign, not yet
 * its turn; `subprocess`: waiting for its child process; `done`: handled; `cancelled`: withdrawn,
 * killed, or made moot by a countersign decided without it.
 */
export type TaskStatus = "todo" | "waiting" | "subprocess" | "done" | "cancelled";

/** What handling a task did, so that withdrawing it can undo exactly that. */
export interface TaskTrail {
  /** Tasks created by the handling (the next steps). */
  created: string[];
  /** Tasks the handling took out of the way, with the status each had (countersign members). */
  cancelled: { id: string; status: TaskStatus }[];
  /** Tasks of a sequential countersign whose turn the handling gave. */
  activated: string[];
  /** Branches the handling forked, and branches it brought to their join. */
  forked: string[];
  arrived: string[];
  /** Branches whose join the handling fired: the process went on past them. */
  joined: string[];
  /** The handling ended the process. */
  ended: boolean;
  /** The milestone the process had before, and the one the handling left it at (absent on older trails). */
  milestoneBefore: Milestone | null;
  milestoneAfter?: Milestone | null;
}

export interface Milestone {
  name: string;
  percent: number;
}

export interface TaskState {
  id: string;
  /** The step's code. */
  node: string;
  /** The parallel branch the task runs in; "" outside any split. */
  branch: string;
  status: TaskStatus;
  /** Users who may handle it (before delegation, which the store adds). */
  candidates: string[];
  /** Tasks created together for one entry into a step (a countersign's members share it). */
  group: string;
  /** Turn within a sequential countersign (0 for the others). */
  turn: number;
  /** The handler (on whose behalf it was handled) and who actually did it. */
  handler: string | null;
  actualUser: string | null;
  action: string | null;
  remark: string | null;
  thing: string | null;
  assignedAt: number;
  handledAt: number | null;
  expiresAt: number | null;
  trail: TaskTrail | null;
  /** The child process of a subprocess task, once started. */
  child: string | null;
}

/** `arrived` waits at its join; `joined` went through it with all its siblings. */
export type BranchStatus = "active" | "arrived" | "joined" | "cancelled";

/** One branch of one forking of a split: `path` is its parent's path, then `/split@n.i`. */
export interface BranchState {
  path: string;
  parent: string;
  split: string;
  /** The forking it belongs to: its siblings share it. */
  fork: string;
  /** The row of the list a dynamic split forked it for. */
  item: number | null;
  status: BranchStatus;
}

export interface ProcessState {
  status: ProcessStatus;
  owner: string;
  data: Record<string, unknown>;
  milestone: Milestone | null;
  tasks: TaskState[];
  branches: BranchState[];
}

/** The row indexes of the dynamic splits a branch path went through, outermost first (4.5's `splitPath`). */
export function dynamicIndexes(path: string, dynamicSplits: ReadonlySet<string>): number[] {
  const indexes: number[] = [];
  for (const part of path.split("/")) {
    const match = /^(.+)@\d+\.(\d+)$/.exec(part);
    if (match && dynamicSplits.has(match[1]!)) indexes.push(Number(match[2]));
  }
  return indexes;
}
