import { waitFor } from "./wait.ts";

/**
 * What the list suites share: the workflows, the people, and the processes made before the tests,
 * made over HTTP as a client makes them or on the workflow's services, through `ListScenarioSteps`.
 */

/** A memo: drafted by its initiator, reviewed by `reviewer`, copied to `watchers` on review. */
export const memo = {
  schema: {
    fields: [
      { name: "reviewer", type: "user" },
      { name: "watchers", type: "users" },
    ],
  },
  graph: {
    nodes: [
      { kind: "start", code: "draft", name: "Draft", milestone: { name: "Drafted", percent: 10 } },
      {
        kind: "task",
        code: "review",
        name: "Review",
        assignees: [{ field: "reviewer" }],
        cc: [{ field: "watchers" }],
        milestone: { name: "Reviewed", percent: 60 },
      },
      { kind: "end", code: "closed", milestone: { name: "Closed", percent: 100 } },
    ],
    edges: [
      { from: "draft", to: "review" },
      { from: "review", to: "closed" },
    ],
  },
};
/** A loan: the initiator collects the book the form names. */
export const loan = {
  schema: { fields: [{ name: "book", type: "thing" }] },
  graph: {
    nodes: [
      { kind: "start", code: "borrow" },
      { kind: "task", code: "collect", assignees: [{ initiator: true }], requiresThing: true },
      { kind: "end", code: "done" },
    ],
    edges: [
      { from: "borrow", to: "collect" },
      { from: "collect", to: "done" },
    ],
  },
};

/** The apps of the lists, each on line for formal and test data. */
export const LIST_APPS = [
  ["memo", memo, { name: "Memo", tags: "office,notes" }],
  ["qingjia", memo, { name: "请假申请", tags: "人事" }],
  ["loan", loan, { name: "Loan", tags: "library" }],
] as const;

export interface Listed {
  id: string;
  entry: number;
  name: string;
  tags: string;
  create: number;
  update: number;
  sort: number | null;
  read: number | null;
  status: string;
  rating: number | null;
  states: { code: string }[];
  milestone: { percent: number } | null;
  app: { code: string };
  owner: { account: string; name: string };
}
export interface TodoTask {
  id: string;
  code: string;
  entrusted: boolean;
  requiresThing: boolean;
  assignUser: { account: string } | null;
  process: { entry: number; owner: { account: string } };
}

export const LIST_PEOPLE = [
  ["alice", "Alice Liu"],
  ["bob", "Bob"],
  ["carol", "Carol"],
  ["dan", "张三"],
  ["erin", "Erin"],
] as const;

/** How a suite makes the scenario's processes: `test` is the test data mode (`/apis/v2d`). */
export interface ListScenarioSteps {
  /** Starts a process and hands in its first step; answers the serial number. */
  begin(owner: string, code: string, data: Record<string, unknown>, test?: boolean): Promise<number>;
  /** Starts a process and leaves its first step to be handed in; answers the serial number. */
  draft(owner: string, code: string): Promise<number>;
  /** 3.3: the user acts on a process (`rate` with `rating`). */
  act(user: string, entry: number, action: string, rating?: number): Promise<void>;
  /** Handles the process's to-do task of the step, as `user`. */
  handleStep(entry: number, step: string, user: string): Promise<void>;
  /** `user` entrusts their work of `app` to `other` from `from` to `to` (Unix seconds). */
  entrust(user: string, other: string, app: string, from: number, to: number): Promise<void>;
  /** Ends every delegation of `user`'s to `other`. */
  endEntrusting(user: string, other: string): Promise<void>;
}

/** Waits for the clock's next second, so what comes next is created or changed a second later. */
async function nextSecond(): Promise<void> {
  const second = Math.floor(Date.now() / 1000);
  await waitFor(() => Math.floor(Date.now() / 1000) > second, 2000, "the next second");
}

/** The processes of the scenario, by name: made over three seconds, so creates and updates differ. */
export async function makeListScenario(steps: ListScenarioSteps): Promise<Record<string, number>> {
  const made: Record<string, number> = {};
  // The first second: three memos of alice's.
  made.reviewed = await steps.begin("alice", "memo", { reviewer: "bob", watchers: ["carol"] });
  made.qingjia = await steps.begin("alice", "qingjia", { reviewer: "bob", watchers: ["carol", "dan"] });
  made.rated = await steps.begin("alice", "memo", { reviewer: "bob" });
  await nextSecond();
  // The next: dan's memos for alice to review, and alice's others.
  made.dans = await steps.begin("dan", "memo", { reviewer: "alice", watchers: ["carol"] });
  made.dansOpen = await steps.begin("dan", "memo", { reviewer: "alice" });
  for (let queued = 0; queued < 3; queued++) await steps.begin("dan", "memo", { reviewer: "bob" });
  made.draft = await steps.draft("alice", "memo");
  made.suspended = await steps.begin("alice", "memo", { reviewer: "bob" });
  await steps.act("alice", made.suspended, "suspend");
  made.killed = await steps.begin("alice", "memo", { reviewer: "bob" });
  await steps.act("alice", made.killed, "kill");
  made.archived = await steps.draft("alice", "memo");
  await steps.act("alice", made.archived, "archive");
  made.loan = await steps.begin("alice", "loan", { book: "B-1" });
  made.test = await steps.begin("alice", "memo", { reviewer: "bob", watchers: ["carol"] }, true);
  await nextSecond();
  // The last: the reviews, so updates come in another order than starts.
  await steps.handleStep(made.reviewed, "review", "bob");
  await steps.handleStep(made.rated, "review", "bob");
  await steps.act("alice", made.rated, "rate", 4);
  await steps.handleStep(made.dans, "review", "alice");
  // bob entrusts his memos to erin while one is started.
  const now = Math.floor(Date.now() / 1000);
  await steps.entrust("bob", "erin", "memo", now - 60, now + 3600);
  made.entrusted = await steps.begin("dan", "memo", { reviewer: "bob" });
  await steps.endEntrusting("bob", "erin");
  // alice's suspended memo resumed and suspended again: changed after the step she handled last.
  await steps.act("alice", made.suspended, "resume");
  await steps.act("alice", made.suspended, "suspend");
  return made;
}
