/** What the directory tells the workflow: who holds a position, and which account a code names. */
export { positionHolderIds, userIdsByCodes } from "./position-store.ts";
