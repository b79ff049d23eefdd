import { WorkflowRefusal } from "../contracts/workflow-errors.ts";
import type { Queryable } from "../runtime/database.ts";
import { deleteEntrustments, entrustmentsOf, putEntrustment } from "./entrustment-store.ts";
import { namedOrOwnAppId, ownAppId } from "./own-workflow.ts";
import type { WorkflowCaller } from "./workflow-caller.ts";
import { namedUser } from "./workflow-tenants.ts";

/**
 * Spec 001 10.x, delegation: a user's `entrustees` handle the user's tasks for a while (of one app,
 * or of every app); its `entrusters` are those whose tasks the user handles. A user token delegates
 * its own user's work; a sys token anyone's of its tenant.
 */
export type Relationship = "entrusters" | "entrustees";

/** A path `/user/{id}/{relationship}/{other}`: the user and the other, by account or id. */
export interface DelegationPath {
  relationship: Relationship;
  user: string;
  other: string;
}

/** A Workflow application's token delegates in its own workflow: `app` names it, or is left out. */
const OWN_WORKFLOW_ONLY = "the application's token delegates its own workflow only";

/** The user a path names; a user token names only its own user. */
async function pathUser(sql: Queryable, caller: WorkflowCaller, id: string): Promise<string> {
  const userId = await namedUser(sql, caller.tenantId, id);
  if (!caller.sys && userId !== caller.userId) {
    throw new WorkflowRefusal(
      "NOT_YOUR_OWN",
      "a user token reads and changes its own user's delegations only",
    );
  }
  return userId;
}

/** Who entrusts whom, for a path `/user/{id}/{relationship}/{other}`, as the caller may change it. */
async function delegationPair(
  sql: Queryable,
  caller: WorkflowCaller,
  { relationship, user, other }: DelegationPath,
  refusal: string,
): Promise<{ entruster: string; entrustee: string }> {
  const userId = await pathUser(sql, caller, user);
  const otherId = await namedUser(sql, caller.tenantId, other);
  const pair =
    relationship === "entrustees"
      ? { entruster: userId, entrustee: otherId }
      : { entruster: otherId, entrustee: userId };
  if (!caller.sys && pair.entruster !== caller.userId) throw new WorkflowRefusal("NOT_YOUR_OWN", refusal);
  return pair;
}

/** 10.1: a user's delegations of one direction; a Workflow application's token sees those reaching its workflow. */
export async function delegationsOf(
  sql: Queryable,
  caller: WorkflowCaller,
  user: string,
  relationship: Relationship,
) {
  const userId = await pathUser(sql, caller, user);
  const all = await entrustmentsOf(sql, caller.tenantId, caller.test, userId, relationship);
  const own = await ownAppId(sql, caller);
  return own ? all.filter((entrustment) => [undefined, own].includes(entrustment.app?.id)) : all;
}

/** 10.2: the entrustee handles the entruster's tasks of `app` (every app without it) from `from` to `to`. */
export async function delegate(
  sql: Queryable,
  caller: WorkflowCaller,
  path: DelegationPath,
  input: { app?: string | undefined; from?: number | undefined; to: number },
) {
  const { entruster, entrustee } = await delegationPair(
    sql,
    caller,
    path,
    "a user delegates their own work only",
  );
  if (entruster === entrustee) throw new WorkflowRefusal("DATA_INVALID", "a user cannot entrust themselves");
  const from = input.from ?? Math.floor(Date.now() / 1000);
  if (from >= input.to) throw new WorkflowRefusal("DATA_INVALID", "to: after from");
  const appId = await namedOrOwnAppId(sql, caller, input.app, OWN_WORKFLOW_ONLY);
  return putEntrustment(
    sql,
    caller.tenantId,
    caller.test,
    entruster,
    entrustee,
    appId ?? null,
    from,
    input.to,
  );
}

/** 10.3: ends a delegation of `app`, or every delegation between the two users; how many ended. */
export async function endDelegation(
  sql: Queryable,
  caller: WorkflowCaller,
  path: DelegationPath,
  app: string | undefined,
): Promise<number> {
  const { entruster, entrustee } = await delegationPair(
    sql,
    caller,
    path,
    "a user ends their own delegations only",
  );
  const appId = await namedOrOwnAppId(sql, caller, app, OWN_WORKFLOW_ONLY);
  const ended = await deleteEntrustments(sql, caller.tenantId, caller.test, entruster, entrustee, appId);
  if (ended === 0) throw new WorkflowRefusal("ENTRUST_NOT_FOUND", "no such delegation");
  return ended;
}
