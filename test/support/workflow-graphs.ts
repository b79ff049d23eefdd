/**
 * The workflows of the graph suites, one per scenario (the first step of each is the initiator's
 * form, `apply`), and how the suites read the processes they run: over HTTP as a client reads
 * them, or from the workflow's services, which answer the same views.
 */

export interface Profile {
  account: string;
}
export interface Task {
  id: string;
  code: string;
  status: number;
  assignUser: Profile | null;
  actionUser: Profile | null;
  actualUser: Profile | null;
  actionName: string | null;
  sub?: { id: string };
}
export interface Milestone {
  name: string;
  percent: number;
  status: "todo" | "doing" | "done";
}
export interface Process {
  id: string;
  entry: number;
  status: string;
  tasks: Task[];
  states: { code: string }[];
  milestone: Milestone | null;
  milestones: Milestone[];
  activities: { description: string }[];
  ancestors?: { id: string; entry: number }[];
}

/** The applicant's form and the end: submitting the form completes the process. */
export const formOnly = {
  graph: {
    nodes: [
      { kind: "start", code: "apply" },
      { kind: "end", code: "done" },
    ],
    edges: [{ from: "apply", to: "done" }],
  },
};

/** A bootstrap workflow of `formOnly`, online in both data modes. */
export const formOnlyWorkflow = (tenant: string, code: string, tags: string) => ({
  tenant,
  code,
  name: code,
  tags,
  versions: [{ online: true, beta: true, definition: formOnly }],
});

export const TODO = 1;
export const DONE = 2;
export const SUBPROCESS = 3;

/** Three levels: `parent` waits on `child`, which waits on `grandchild`, whose `check` is the reviewer's. */
export const grandchild = {
  schema: { fields: [{ name: "reviewer", type: "string" }] },
  graph: {
    nodes: [
      { kind: "start", code: "apply" },
      { kind: "task", code: "check", assignees: [{ field: "reviewer" }] },
      { kind: "end", code: "done" },
    ],
    edges: [
      { from: "apply", to: "check" },
      { from: "check", to: "done" },
    ],
  },
};
export const child = {
  schema: { fields: [{ name: "reviewer", type: "string" }] },
  graph: {
    nodes: [
      { kind: "start", code: "apply" },
      { kind: "subprocess", code: "inner", workflow: "grandchild", data: { reviewer: "reviewer" } },
      { kind: "task", code: "confirm", assignees: [{ accounts: ["carol"] }] },
      { kind: "end", code: "done" },
    ],
    edges: [
      { from: "apply", to: "inner" },
      { from: "inner", to: "confirm" },
      { from: "confirm", to: "done" },
    ],
  },
};
export const parent = {
  schema: { fields: [{ name: "reviewer", type: "string" }] },
  graph: {
    nodes: [
      { kind: "start", code: "apply" },
      { kind: "subprocess", code: "outer", workflow: "child", data: { reviewer: "reviewer" } },
      { kind: "task", code: "close", assignees: [{ accounts: ["dan"] }] },
      { kind: "end", code: "done" },
    ],
    edges: [
      { from: "apply", to: "outer" },
      { from: "outer", to: "close" },
      { from: "close", to: "done" },
    ],
  },
};

/** One `grade` task per row of `papers`, for the row's `grader`, open to the system user; `sign` after the join. */
export const grading = {
  schema: {
    fields: [
      {
        name: "papers",
        type: "list",
        fields: [
          { name: "title", type: "string" },
          { name: "grader", type: "user" },
        ],
      },
    ],
  },
  graph: {
    nodes: [
      { kind: "start", code: "apply" },
      { kind: "dynamicParallel", code: "each", list: "papers" },
      { kind: "task", code: "grade", assignees: [{ field: "grader" }], allowSystemUser: true },
      { kind: "join", code: "gather", split: "each" },
      { kind: "task", code: "sign", assignees: [{ accounts: ["carol"] }] },
      { kind: "end", code: "done" },
    ],
    edges: [
      { from: "apply", to: "each" },
      { from: "each", to: "grade" },
      { from: "grade", to: "gather" },
      { from: "gather", to: "sign" },
      { from: "sign", to: "done" },
    ],
  },
};

/** `inTurn`: bob, carol, dan one after another (a rejection ends it); `together`: bob and carol at once. */
export const countersign = {
  graph: {
    nodes: [
      { kind: "start", code: "apply" },
      {
        kind: "task",
        code: "inTurn",
        assignees: [{ accounts: ["bob", "carol", "dan"] }],
        mode: "sequential",
        actions: [
          { id: 1, code: "approve", name: "Approve" },
          { id: 2, code: "reject", name: "Reject" },
        ],
      },
      { kind: "task", code: "together", assignees: [{ accounts: ["bob", "carol"] }], mode: "all" },
      { kind: "end", code: "done" },
    ],
    edges: [
      { from: "apply", to: "inTurn" },
      { from: "inTurn", to: "together", action: "approve" },
      { from: "inTurn", to: "done", action: "reject" },
      { from: "together", to: "done" },
    ],
  },
};

/** `screen` is hidden; each step is a milestone further on. */
export const tracked = {
  graph: {
    nodes: [
      { kind: "start", code: "apply", milestone: { name: "Submitted", percent: 10 } },
      {
        kind: "task",
        code: "screen",
        assignees: [{ accounts: ["erin"] }],
        hidden: true,
        milestone: { name: "Screening", percent: 40 },
      },
      {
        kind: "task",
        code: "decide",
        assignees: [{ accounts: ["carol"] }],
        milestone: { name: "Deciding", percent: 70 },
      },
      { kind: "end", code: "done", milestone: { name: "Closed", percent: 100 } },
    ],
    edges: [
      { from: "apply", to: "screen" },
      { from: "screen", to: "decide" },
      { from: "decide", to: "done" },
    ],
  },
};

/** `triage` leads through an exclusive choice to `fast` (bob) or `slow` (dan); `file` is beyond `fast`. */
export const routed = {
  schema: { fields: [{ name: "days", type: "number" }] },
  graph: {
    nodes: [
      { kind: "start", code: "apply" },
      { kind: "task", code: "triage", assignees: [{ accounts: ["carol"] }], allowSystemUser: true },
      { kind: "exclusive", code: "which" },
      { kind: "task", code: "fast", assignees: [{ accounts: ["bob"] }] },
      { kind: "task", code: "slow", assignees: [{ accounts: ["dan"] }] },
      { kind: "task", code: "file", assignees: [{ accounts: ["erin"] }] },
      { kind: "end", code: "done" },
    ],
    edges: [
      { from: "apply", to: "triage" },
      { from: "triage", to: "which" },
      { from: "which", to: "fast", condition: "days <= 2" },
      { from: "which", to: "slow", default: true },
      { from: "fast", to: "file" },
      { from: "file", to: "done" },
      { from: "slow", to: "done" },
    ],
  },
};

/** `approve` (bob), then `after` (carol). */
export const simple = {
  graph: {
    nodes: [
      { kind: "start", code: "apply" },
      { kind: "task", code: "approve", assignees: [{ accounts: ["bob"] }] },
      { kind: "task", code: "after", assignees: [{ accounts: ["carol"] }] },
      { kind: "end", code: "done" },
    ],
    edges: [
      { from: "apply", to: "approve" },
      { from: "approve", to: "after" },
      { from: "after", to: "done" },
    ],
  },
};

/** `child`, whose step after the sub-process has nobody to handle it and refuses to be skipped. */
export const stuck = {
  ...child,
  graph: {
    ...child.graph,
    nodes: child.graph.nodes.map((node) =>
      node.code === "confirm"
        ? { ...node, assignees: [{ accounts: ["nobody-here"] }], whenNobody: "refuse" }
        : node,
    ),
  },
};

/** A parallel split into 20 steps of bob's, joined before carol's `close`. */
export const fanOut = (() => {
  const steps = Array.from({ length: 20 }, (_, i) => `part${i}`);
  return {
    graph: {
      nodes: [
        { kind: "start", code: "apply" },
        { kind: "parallel", code: "split" },
        ...steps.map((code) => ({ kind: "task", code, assignees: [{ accounts: ["bob"] }] })),
        { kind: "join", code: "joined", split: "split" },
        { kind: "task", code: "close", assignees: [{ accounts: ["carol"] }] },
        { kind: "end", code: "done" },
      ],
      edges: [
        { from: "apply", to: "split" },
        ...steps.flatMap((code) => [
          { from: "split", to: code },
          { from: code, to: "joined" },
        ]),
        { from: "joined", to: "close" },
        { from: "close", to: "done" },
      ],
    },
  };
})();

/** A parallel split into 5 sub-processes of `grandchild` (bob's `check` each), joined before carol's `close`. */
export const fanOutChildren = (() => {
  const steps = Array.from({ length: 5 }, (_, i) => `sub${i}`);
  return {
    schema: { fields: [{ name: "reviewer", type: "string" }] },
    graph: {
      nodes: [
        { kind: "start", code: "apply" },
        { kind: "parallel", code: "split" },
        ...steps.map((code) => ({
          kind: "subprocess",
          code,
          workflow: "grandchild",
          data: { reviewer: "reviewer" },
        })),
        { kind: "join", code: "joined", split: "split" },
        { kind: "task", code: "close", assignees: [{ accounts: ["carol"] }] },
        { kind: "end", code: "done" },
      ],
      edges: [
        { from: "apply", to: "split" },
        ...steps.flatMap((code) => [
          { from: "split", to: code },
          { from: code, to: "joined" },
        ]),
        { from: "joined", to: "close" },
        { from: "close", to: "done" },
      ],
    },
  };
})();

/** Starts itself as its sub-process: each level's form is handled at once, so it would nest for ever. */
export const recursive = {
  graph: {
    nodes: [
      { kind: "start", code: "apply" },
      { kind: "subprocess", code: "again", workflow: "recursive", data: {} },
      { kind: "end", code: "done" },
    ],
    edges: [
      { from: "apply", to: "again" },
      { from: "again", to: "done" },
    ],
  },
};

/** The tasks of a step, in the order the process lists them. */
export const tasksAt = (process: Process, code: string) => process.tasks.filter((task) => task.code === code);
export const statuses = (process: Process, code: string) => tasksAt(process, code).map((task) => task.status);
export const accountOf = (profile: Profile | null | undefined) => profile?.account ?? null;
