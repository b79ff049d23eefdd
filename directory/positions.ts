import type { Queryable } from "../runtime/database.ts";
import { type HeldPosition, positionsOf, userIdByCode } from "./position-store.ts";

/**
 * Who holds which position (spec 001 1.6 and 6.x): read by user, searched by position, granted
 * and taken away; and, for the workflow's assignees, who holds a position and whom a code names. A position is parsed at the edge, before the tenant is resolved, so a malformed
 * one is refused first.
 */
export {
  grantPosition,
  type HeldPosition,
  occupanciesMatching,
  type PositionPattern,
  parsePosition,
  parsePositionFilter,
  positionHolderIds,
  positionPatternsHeldBy,
  requireKnownPosition,
  revokePosition,
  searchUsers,
  type UserQuery,
  userIdsByCodes,
} from "./position-store.ts";

/** The positions an enabled user of the tenant holds: the user by id, or (6.1) by account or id. */
export async function heldPositions(
  sql: Queryable,
  tenantId: string,
  user: { id: string } | { code: string },
): Promise<HeldPosition[]> {
  const userId = "id" in user ? user.id : await userIdByCode(sql, tenantId, user.code);
  return positionsOf(sql, tenantId, userId);
}
