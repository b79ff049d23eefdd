/**
 * What the directory tells the workflow: who holds a position (a department and post, either of
 * them a wildcard) and which account a code names.
 */
export {
  type PositionPattern,
  parsePosition,
  positionHolderIds,
  userIdsByCodes,
} from "./position-store.ts";
