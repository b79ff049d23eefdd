import { type Sql, transaction } from "../../runtime/database.ts";
import { assignPositions, trySequencerLock, unsequencedEventIds } from "./outbox-store.ts";

/**
 * Gives up to `limit` committed events without a position the next positions, in id order;
 * returns how many, 0 also when another process is sequencing right now (it will do the same).
 *
 * Why positions, and why this order. An event's id is taken when its row is inserted, not when
 * its transaction commits: A takes id 10, B takes 11, B commits first. A reader of `id > cursor`
 * would read 11, move past it, and never see 10 once A commits. Here only rows already committed
 * and visible are numbered, so 10, committing late, is still without a position and gets one after
 * 11's: late, never skipped.
 *
 * Numbering the visible rows by id keeps each process's order: a process's commands take turns
 * on a row lock of the process (the engine's write is guarded by the process's revision, and the
 * other writes lock it first), so the event a later command writes takes its id after the earlier
 * command committed. For one process, id order is commit order, and an event is visible only
 * once every earlier event of its process is: a batch that holds it holds them or they already
 * have positions.
 *
 * One sequencer at a time, by a transaction-scoped advisory lock (a try: a busy sequencer means
 * the work is being done), so positions commit in increasing order: a batch's lock is taken only
 * after the previous batch committed, and readers never see a position before a lower one.
 */
export async function sequenceEvents(sql: Sql, limit: number): Promise<number> {
  return transaction(sql, async (tx) => {
    if (!(await trySequencerLock(tx))) return 0;
    const ids = await unsequencedEventIds(tx, limit);
    if (ids.length > 0) await assignPositions(tx, ids);
    return ids.length;
  });
}
