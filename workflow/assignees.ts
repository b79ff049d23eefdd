import { positionHolderIds, userIdsByCodes } from "../directory/positions.ts";
import type { Queryable } from "../runtime/database.ts";
import type { DirectoryQuestion } from "./engine/directory-questions.ts";

/**
 * Answers the engine's directory questions from the tenant's records, once, when a task is
 * created: accounts and user ids to users in the order named, then the holders of the positions
 * (of the posts in the initiator's own departments for `{initiator}:post`), ordered by account.
 * Disabled and unknown accounts are left out.
 */
export function directoryLookup(sql: Queryable, tenantId: string) {
  return async (question: DirectoryQuestion): Promise<string[]> => {
    const [named, holders] = await Promise.all([
      userIdsByCodes(sql, tenantId, question.codes),
      positionHolderIds(sql, tenantId, question.positions, {
        userId: question.initiator,
        posts: question.initiatorPosts,
      }),
    ]);
    return [...named, ...holders];
  };
}
