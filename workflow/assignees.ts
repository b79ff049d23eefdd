import type { Assignee } from "../contracts/workflow-definition.ts";
import type { Queryable } from "../runtime/database.ts";
import {
  type PositionPattern,
  parsePosition,
  positionHolderIds,
  userIdsByCodes,
} from "../runtime/store/positions.ts";
import type { AssignmentFacts } from "./engine/run-state.ts";

/** The department part of a position that stands for each department the initiator holds a post in. */
export const INITIATOR_DEPARTMENT = "{initiator}";

/**
 * Resolves a step's assignee rules to users of the tenant through the directory, once, when the
 * task is created: positions to their holders (the initiator's own departments for
 * `{initiator}:post`), accounts and data fields to users, `initiator` and `handlerOf` to the users
 * the process already knows. Disabled and unknown accounts are left out.
 */
export function assigneeResolver(sql: Queryable, tenantId: string) {
  return async (assignees: readonly Assignee[], facts: AssignmentFacts): Promise<string[]> => {
    const users: string[] = [];
    const patterns: PositionPattern[] = [];
    const initiatorPosts: string[] = [];
    const codes: string[] = [];
    for (const assignee of assignees) {
      if ("position" in assignee) {
        const pattern = parsePosition(assignee.position);
        if (pattern.dept === INITIATOR_DEPARTMENT) initiatorPosts.push(pattern.post);
        else patterns.push(pattern);
      } else if ("accounts" in assignee) codes.push(...assignee.accounts);
      else if ("initiator" in assignee) users.push(facts.owner);
      else if ("handlerOf" in assignee) {
        const handler = facts.handlers.get(assignee.handlerOf);
        if (handler) users.push(handler);
      } else {
        const value = facts.data[assignee.field];
        const named = Array.isArray(value) ? value : [value];
        codes.push(...named.filter((item): item is string => typeof item === "string" && item.length > 0));
      }
    }
    const [named, holders] = await Promise.all([
      userIdsByCodes(sql, tenantId, codes),
      positionHolderIds(sql, tenantId, patterns, { userId: facts.owner, posts: initiatorPosts }),
    ]);
    users.push(...named, ...holders);
    return [...new Set(users)];
  };
}
