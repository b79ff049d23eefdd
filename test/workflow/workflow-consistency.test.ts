import assert from "node:assert/strict";
import { checkConsistency } from "../../workflow/consistency-check.ts";
import { changeDataOf } from "../../workflow/process-data-service.ts";
import { handleTask, startProcessFor, withdrawTask } from "../../workflow/process-service.ts";
import { testModes } from "../support/platform.ts";
import { after, before, describe, it } from "../support/skippable-suites.ts";
import { type WorkflowWorld, workflowWorld } from "../support/workflow-services.ts";

/** The applicant's form, then one approval by bob, then the end. */
const approval = {
  schema: { fields: [{ name: "days", type: "number" }] },
  graph: {
    nodes: [
      { kind: "start", code: "apply" },
      { kind: "task", code: "approve", assignees: [{ accounts: ["bob"] }] },
      { kind: "end", code: "done" },
    ],
    edges: [
      { from: "apply", to: "approve" },
      { from: "approve", to: "done" },
    ],
  },
};

// The check an operator (and the fault scenarios) run over a process's rows: silent while they
// agree, naming the process and the rule once one is changed behind the engine's back.
for (const mode of await testModes()) {
  describe(`the workflow's consistency check (${mode.name})`, { skip: mode.skip }, () => {
    let world: WorkflowWorld;

    before(async () => {
      world = await workflowWorld(
        mode,
        [{ domain: "example.edu", name: "Example" }],
        [
          ["example.edu", "alice", "Alice"],
          ["example.edu", "bob", "Bob"],
        ],
      );
      await world.deploy("approval", approval);
    });
    after(async () => {
      await world?.close();
    });

    /** A process of alice's with her form handled: bob's approval to do. */
    async function submitted(): Promise<{ processId: string; approvalId: string }> {
      const [, , , form] = (await startProcessFor(world.deps, world.caller({ user: "alice" }), {
        code: "approval",
      })) as [number, number, string, { id: string; process: { id: string } }];
      await handleTask(world.deps, world.caller({ user: "alice" }), form.id, {});
      const [task] = await world.db.sql<{ id: string }[]>`
        select id from workflow_tasks where process_id = ${form.process.id} and node = 'approve'`;
      return { processId: form.process.id, approvalId: task!.id };
    }

    const rulesOf = async (processId: string) =>
      (await checkConsistency(world.db.sql, [processId])).map((finding) => finding.rule);

    it("finds nothing in processes the engine ran, going on or ended", async () => {
      const going = await submitted();
      const ended = await submitted();
      await handleTask(world.deps, world.caller({ user: "bob" }), ended.approvalId, {});
      assert.deepEqual(await checkConsistency(world.db.sql, [going.processId, ended.processId]), []);
      assert.deepEqual(await checkConsistency(world.db.sql), []);
    });

    it("names a to-do lost, a status changed, and a handling written twice", async () => {
      const lost = await submitted();
      await world.db.sql`delete from workflow_todo where task_id = ${lost.approvalId}`;
      assert.deepEqual(await rulesOf(lost.processId), [
        "a candidate of a task to do without its to-do row (or a delegate's)",
        "a task to do that is nobody's to-do",
      ]);

      const ended = await submitted();
      await world.db.sql`update workflow_processes set status = 'done' where id = ${ended.processId}`;
      assert.deepEqual(await rulesOf(ended.processId), [
        "an end time that does not match the status",
        "an ended process with a task to do",
        "an ended process without its process.ended event",
        "an inbox row with another status than its process",
        "the journal replays to other rows: its status",
      ]);

      const twice = await submitted();
      await handleTask(world.deps, world.caller({ user: "bob" }), twice.approvalId, {});
      await world.db.sql`
        insert into workflow_events (tenant_id, test, process_id, type, task_id)
        select tenant_id, test, process_id, type, task_id from workflow_events
        where task_id = ${twice.approvalId} and type = 'todo.done'`;
      assert.deepEqual(await rulesOf(twice.processId), ["a task handled more often than it became a to-do"]);
    });

    it("replays each process's journal to the rows the store holds, and names what the journal does not explain", async () => {
      const replayed = await submitted();
      await changeDataOf(world.deps, world.caller({ user: "alice" }), replayed.processId, { days: 3 });
      const [form] = await world.db.sql<{ id: string }[]>`
        select id from workflow_tasks where process_id = ${replayed.processId} and node = 'apply'`;
      await withdrawTask(world.deps, world.caller({ user: "alice" }), form!.id);
      await handleTask(world.deps, world.caller({ user: "alice" }), form!.id, {});
      const [again] = await world.db.sql<{ id: string }[]>`
        select id from workflow_tasks where process_id = ${replayed.processId} and node = 'approve' and status = 'todo'`;
      await handleTask(world.deps, world.caller({ user: "bob" }), again!.id, {});
      const [journal] = await world.db.sql<{ writes: number; kinds: string[] }[]>`
        select count(*)::int as writes, array_agg(kind order by revision) as kinds
        from workflow_journal where process_id = ${replayed.processId}`;
      assert.deepEqual(journal, {
        writes: 6,
        kinds: ["command", "command", "data", "command", "command", "command"],
      });
      assert.deepEqual(await rulesOf(replayed.processId), []);

      // Rows changed behind the engine's back, in ways the other rules cannot see.
      const reassigned = await submitted();
      await world.db.sql`
        update workflow_tasks set candidates = array[(select id from users where account = 'alice')]
        where id = ${reassigned.approvalId}`;
      await world.db.sql`
        update workflow_todo set user_id = (select id from users where account = 'alice')
        where task_id = ${reassigned.approvalId}`;
      assert.deepEqual(await rulesOf(reassigned.processId), [
        `the journal replays to other rows: task ${reassigned.approvalId}`,
      ]);

      const unjournaled = await submitted();
      await world.db.sql`update workflow_processes set data = '{"days": 9}', revision = revision + 1
                         where id = ${unjournaled.processId}`;
      assert.deepEqual(await rulesOf(unjournaled.processId), ["a journal of 2 writes for revision 2"]);
    });
  });
}
