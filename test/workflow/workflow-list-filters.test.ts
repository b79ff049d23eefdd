import assert from "node:assert/strict";
import { ErrorCode, PlatformError } from "../../contracts/errors.ts";
import { delegate, endDelegation } from "../../workflow/delegations.ts";
import { processesOf } from "../../workflow/inbox.ts";
import type { ListParameters, ProcessCategory } from "../../workflow/list-filters.ts";
import type { ProcessAction } from "../../workflow/process-actions.ts";
import { actOnProcessFor, handleTask, readProcess, startProcessFor } from "../../workflow/process-service.ts";
import { testModes } from "../support/platform.ts";
import { after, before, describe, it } from "../support/skippable-suites.ts";
import { WORKFLOW_TENANTS } from "../support/workflow-fixture.ts";
import { LIST_APPS, LIST_PEOPLE, type Listed, makeListScenario } from "../support/workflow-lists.ts";
import { type WorkflowWorld, workflowWorld } from "../support/workflow-services.ts";

/**
 * 2.4-2.7's process lists on the workflow's services: which processes each category holds for a
 * user, every filter of spec 001's table, the orders, and the refusal of a malformed parameter.
 * What a client sees of the lists over HTTP is workflow-lists-api.test.ts's.
 */

type Parameters = Partial<ListParameters>;

for (const mode of await testModes()) {
  describe(`workflow list filters on the services (${mode.name})`, { skip: mode.skip }, () => {
    let world: WorkflowWorld;
    /** The processes made in `before`, by name. */
    let made: Record<string, number> = {};

    const as = (user: string, test = false) => world.caller({ user, test });

    /** 2.4-2.7 for the user: the processes of the category, a thousand at most. */
    async function list(who: string, category: ProcessCategory, parameters: Parameters = {}) {
      const answer = await processesOf(world.deps, as(who), undefined, category, {
        start: 0,
        limit: 1000,
        ...parameters,
      });
      return { total: answer.total, entities: answer.processes as unknown as Listed[] };
    }
    const entries = (answer: { entities: Listed[] }) => answer.entities.map((process) => process.entry);

    before(async () => {
      world = await workflowWorld(
        mode,
        WORKFLOW_TENANTS,
        LIST_PEOPLE.map(([account, name]) => ["example.edu", account, name] as const),
      );
      for (const [code, definition, app] of LIST_APPS) await world.deploy(code, definition, app, true);
      const { deps } = world;
      const start = async (owner: string, code: string, data: string, test: boolean) =>
        (await startProcessFor(deps, as(owner, test), { code, data })) as [
          number,
          number,
          string,
          { id: string },
        ];
      made = await makeListScenario({
        async begin(owner, code, data, test = false) {
          const [entry, , , task] = await start(owner, code, JSON.stringify(data), test);
          await handleTask(deps, as(owner, test), task.id, {});
          return entry;
        },
        async draft(owner, code) {
          return (await start(owner, code, "{}", false))[0];
        },
        async act(user, entry, action, rating) {
          await actOnProcessFor(deps, as(user), String(entry), { action: action as ProcessAction, rating });
        },
        async handleStep(entry, step, user) {
          const view = await readProcess(deps, world.caller({ sys: true }), String(entry), {});
          const task = view.tasks.find((task) => task.code === step && task.status === 1)!;
          await handleTask(deps, as(user), task.id, {});
        },
        async entrust(user, other, app, from, to) {
          await delegate(deps.sql, as(user), { relationship: "entrustees", user, other }, { app, from, to });
        },
        async endEntrusting(user, other) {
          await endDelegation(deps.sql, as(user), { relationship: "entrustees", user, other }, undefined);
        },
      });
    });

    after(async () => {
      await world?.close();
    });

    it("answers doing, done, completed, unrated and operator by what the user is to each process", async () => {
      const doing = entries(await list("alice", "doing"));
      assert.deepEqual(
        doing.sort((a, b) => a - b),
        [made.qingjia, made.draft, made.suspended, made.loan].sort((a, b) => a! - b!),
        "started or handled, not ended (suspended included); archived left out",
      );
      const done = entries(await list("alice", "done"));
      assert.deepEqual(
        done.sort((a, b) => a - b),
        [made.reviewed, made.rated, made.dans, made.killed].sort((a, b) => a! - b!),
        "ended ones, the killed included, and dan's alice handled",
      );
      const completed = await list("alice", "completed");
      assert.equal(completed.total, doing.length + done.length);
      assert.deepEqual(
        entries(await list("alice", "unrated")).sort((a, b) => a - b),
        [made.reviewed, made.killed],
      );
      const handled = [
        made.reviewed,
        made.qingjia,
        made.rated,
        made.dans,
        made.suspended,
        made.killed,
        made.loan,
      ];
      assert.deepEqual(
        entries(await list("alice", "operator")).sort((a, b) => a - b),
        handled.sort((a, b) => a! - b!),
        "processes she handled a step of (her own first steps too)",
      );
      const withArchived = entries(await list("alice", "doing", { archive: true }));
      assert.ok(withArchived.includes(made.archived!) && !doing.includes(made.archived!));
      assert.deepEqual(entries(await list("erin", "entrusted")), [made.entrusted]);
      assert.deepEqual(
        entries(await list("erin", "doing")),
        [],
        "a delegate who has not handled it took no part",
      );
    });

    it("filters by every parameter of the table, each changing the answer", async () => {
      const all = (await list("alice", "completed", { archive: true })).entities;
      const check = async (parameters: Parameters, keep: (process: Listed) => boolean) => {
        const expected = all
          .filter(keep)
          .map((process) => process.entry)
          .sort((a, b) => a - b);
        const answer = await list("alice", "completed", { archive: true, ...parameters });
        const got = entries(answer).sort((a, b) => a - b);
        assert.deepEqual(got, expected, JSON.stringify(parameters));
        assert.equal(answer.total, expected.length);
        assert.ok(
          expected.length > 0 && expected.length < all.length,
          `${JSON.stringify(parameters)} changes the answer`,
        );
      };
      const text = (process: Listed) =>
        [process.name, process.tags, process.owner.account, process.owner.name, process.entry]
          .join(" ")
          .toLowerCase();
      await check({ app: "qingjia" }, (process) => process.app.code === "qingjia");
      await check({ entry: made.dans }, (process) => process.entry === made.dans);
      await check({ keyword: "lice" }, (process) => text(process).includes("lice"));
      await check(
        { keyword: "假申, 张" },
        (process) => text(process).includes("假申") || text(process).includes("张"),
      );
      await check({ keyword: String(made.loan) }, (process) => text(process).includes(String(made.loan)));
      await check({ keyword: "alice", fullText: true }, (process) => process.owner.account === "alice");
      await check({ keyword: "假申", fullText: true }, (process) => process.name === "请假申请");
      await check(
        { keyword: "人事 张三", fullText: true },
        (process) => process.tags === "人事" || process.owner.name === "张三",
      );
      assert.equal(
        (await list("alice", "completed", { keyword: "lice", fullText: true })).total,
        0,
        "whole words",
      );
      assert.equal(
        (await list("alice", "completed", { keyword: "申请请假", fullText: true })).total,
        0,
        "in order",
      );
      const creates = [...new Set(all.map((process) => process.create))].sort();
      const first = creates[0]!;
      await check({ timestamps: `${first}~${first}` }, (process) => process.create === first);
      await check({ timestamps: `${first + 1}~` }, (process) => process.create >= first + 1);
      const updates = [...new Set(all.map((process) => process.update))].sort();
      const last = updates[updates.length - 1]!;
      await check({ lastUpdate: `${last}~` }, (process) => process.update >= last);
      await check({ lastUpdate: `~${last - 1}` }, (process) => process.update <= last - 1);
      await check({ order: "create", orderTimes: `~${first}` }, (process) => process.create <= first);
      await check({ milestones: "60~100" }, (process) => (process.milestone?.percent ?? -1) >= 60);
      await check(
        { milestones: "~10" },
        (process) => process.milestone !== null && process.milestone.percent <= 10,
      );
      await check({ ratings: "-1~-1" }, (process) => process.rating === null);
      await check({ ratings: "3~5" }, (process) => process.rating !== null && process.rating >= 3);
      await check({ ratings: "-1~3" }, (process) => process.rating === null || process.rating <= 3);
      await check({ statuses: "suspended,killed" }, (process) =>
        ["suspended", "killed"].includes(process.status),
      );
      await check({ states: "review,collect" }, (process) =>
        process.states.some((state) => ["review", "collect"].includes(state.code)),
      );
      await check({ sep: true }, (process) => process.owner.account !== "alice");
      await check({ sep: false }, (process) => process.owner.account === "alice");
      await check({ thing: true }, (process) => process.entry === made.loan);
      await check({ thing: false }, (process) => process.entry !== made.loan);
      assert.equal((await list("alice", "completed", { statuses: "draft" })).total, 0);
    });

    it("orders by update, create, action and auto, descending or ascending, sort carrying the time", async () => {
      const orders: Record<string, number[]> = {};
      for (const field of ["update", "create", "action", "auto"]) {
        for (const direction of ["desc", "asc"]) {
          const answer = await list("alice", "completed", { order: `${field} ${direction}` });
          const sorts = answer.entities.map((process) => process.sort);
          const timed = sorts.filter((sort): sort is number => sort !== null);
          assert.deepEqual(sorts.slice(0, timed.length), timed, "those without the time come last");
          const sorted = [...timed].sort((a, b) => (direction === "desc" ? b - a : a - b));
          assert.deepEqual(timed, sorted, `${field} ${direction} is in order`);
          if (field === "update" || field === "create") {
            assert.deepEqual(
              sorts,
              answer.entities.map((process) => process[field]),
            );
          }
          orders[`${field} ${direction}`] = entries(answer);
        }
      }
      assert.deepEqual(
        orders["auto desc"],
        entries(await list("alice", "completed")),
        "auto desc is the default",
      );
      assert.notDeepEqual(
        orders["update desc"],
        orders["create desc"],
        "the data orders differently by each",
      );
      assert.equal(orders["action desc"]![0], made.dans, "dan's memo is the one alice handled last");
      assert.notEqual(orders["update desc"]![0], made.dans);
    });

    it("refuses a malformed range, order or status as an invalid argument naming the parameter", async () => {
      for (const [parameter, value] of [
        ["order", "sideways"],
        ["order", "update up"],
        ["timestamps", "yesterday"],
        ["milestones", "100~60"],
        ["ratings", "1-5"],
        ["orderTimes", "~x"],
        ["lastUpdate", "1~2~3"],
        // Values Postgres would refuse (a fraction for an integer column, a time past year 9999)
        // are refused here, not answered as a server error.
        ["ratings", "0.5~5"],
        ["milestones", "50.5~"],
        ["milestones", "~99999999999"],
        ["timestamps", "0~99999999999999999999"],
        ["lastUpdate", "253402300800~"],
        ["statuses", "doing,lost"],
      ] as const) {
        await assert.rejects(list("alice", "doing", { [parameter]: value }), (error: unknown) => {
          assert.ok(error instanceof PlatformError, `${parameter}=${value}: ${error}`);
          assert.equal(error.code, ErrorCode.InvalidArgument, `${parameter}=${value}`);
          assert.match(error.message, new RegExp(parameter), `${parameter}=${value}: ${error.message}`);
          return true;
        });
      }
    });
  });
}
