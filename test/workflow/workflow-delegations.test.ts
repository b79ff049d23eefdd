import assert from "node:assert/strict";
import { WorkflowRefusal } from "../../contracts/workflow-errors.ts";
import type { Database } from "../../runtime/database.ts";
import { upsertWorkflowApp } from "../../workflow/app-store.ts";
import { delegate, delegationsOf, endDelegation } from "../../workflow/delegations.ts";
import type { WorkflowCaller } from "../../workflow/workflow-caller.ts";
import { testModes } from "../support/platform.ts";
import { after, before, describe, it } from "../support/skippable-suites.ts";
import { type WorkflowWorld, workflowWorld } from "../support/workflow-services.ts";

const NOW = Math.floor(Date.now() / 1000);
const WEEK = 7 * 24 * 3600;

/** A refusal of spec 001's kind `refusal`. */
function refused(refusal: string) {
  return (error: unknown) => error instanceof WorkflowRefusal && error.refusal === refusal;
}

// Delegation's rules need a database and nothing else: no gateway, no broker.
for (const mode of await testModes()) {
  describe(`workflow delegation on its own (${mode.name})`, { skip: mode.skip }, () => {
    let world: WorkflowWorld;
    let db: Database;

    /** A call of the tenant's formal data, as a user token of `account`, a sys token, or a Workflow application's. */
    function caller(as: { user: string } | { sys: true; workflowCode?: string }): WorkflowCaller {
      return world.caller(as);
    }

    before(async () => {
      world = await workflowWorld(
        mode,
        [{ domain: "example.edu", name: "Example" }],
        ["alice", "bob", "carol"].map((account) => ["example.edu", account, account] as const),
      );
      db = world.db;
      for (const code of ["leave", "travel"])
        await upsertWorkflowApp(db.sql, world.tenantId(), { code, name: code });
    });

    after(async () => {
      await world?.close();
    });

    it("lets a user entrust their own work, both ways round, and no one else's", async () => {
      const path = { relationship: "entrustees" as const, user: "alice", other: "bob" };
      const saved = await delegate(db.sql, caller({ user: "alice" }), path, { app: "leave", to: NOW + WEEK });
      assert.equal(saved.entruster.account, "alice");
      assert.equal(saved.entrustee.account, "bob");
      assert.equal(saved.app?.code, "leave");
      const seen = await delegationsOf(db.sql, caller({ user: "bob" }), "bob", "entrusters");
      assert.deepEqual(
        seen.map((entrustment) => entrustment.entruster.account),
        ["alice"],
      );
      await assert.rejects(
        delegate(db.sql, caller({ user: "bob" }), path, { to: NOW + WEEK }),
        refused("NOT_YOUR_OWN"),
      );
      await assert.rejects(
        delegationsOf(db.sql, caller({ user: "carol" }), "alice", "entrustees"),
        refused("NOT_YOUR_OWN"),
      );
    });

    it("refuses a delegation to oneself, one that ends before it starts, and an unknown app", async () => {
      const self = { relationship: "entrustees" as const, user: "carol", other: "carol" };
      await assert.rejects(
        delegate(db.sql, caller({ user: "carol" }), self, { to: NOW + WEEK }),
        refused("DATA_INVALID"),
      );
      const path = { relationship: "entrustees" as const, user: "carol", other: "bob" };
      await assert.rejects(
        delegate(db.sql, caller({ user: "carol" }), path, { from: NOW + WEEK, to: NOW }),
        refused("DATA_INVALID"),
      );
      await assert.rejects(
        delegate(db.sql, caller({ user: "carol" }), path, { app: "nothing", to: NOW + WEEK }),
        refused("APP_NOT_FOUND"),
      );
    });

    it("confines a Workflow application's token to its own workflow", async () => {
      const travel = caller({ sys: true, workflowCode: "travel" });
      const path = { relationship: "entrustees" as const, user: "carol", other: "alice" };
      await assert.rejects(
        delegate(db.sql, travel, path, { app: "leave", to: NOW + WEEK }),
        refused("WORKFLOW_MISMATCH"),
      );
      const saved = await delegate(db.sql, travel, path, { to: NOW + WEEK });
      assert.equal(saved.app?.code, "travel", "without `app`, its own workflow");
      await delegate(
        db.sql,
        caller({ sys: true }),
        { ...path, other: "bob" },
        { app: "leave", to: NOW + WEEK },
      );
      const seen = await delegationsOf(db.sql, travel, "carol", "entrustees");
      assert.deepEqual(
        seen.map((entrustment) => entrustment.app?.code),
        ["travel"],
      );
    });

    it("lets the entruster end a delegation, once, and not the entrustee", async () => {
      const fromBob = { relationship: "entrusters" as const, user: "bob", other: "alice" };
      await assert.rejects(
        endDelegation(db.sql, caller({ user: "bob" }), fromBob, "leave"),
        refused("NOT_YOUR_OWN"),
      );
      const path = { relationship: "entrustees" as const, user: "alice", other: "bob" };
      assert.equal(await endDelegation(db.sql, caller({ user: "alice" }), path, "leave"), 1);
      await assert.rejects(
        endDelegation(db.sql, caller({ user: "alice" }), path, "leave"),
        refused("ENTRUST_NOT_FOUND"),
      );
    });
  });
}
