import { ErrorCode, localizedError } from "../contracts/errors.ts";
import type { Queryable } from "../runtime/database.ts";
import { findTriple, modifiableFields, type TripleEntry, type TripleType } from "./triple-store.ts";

/** Spec 001 5.x: the users, departments and posts a tenant's positions are made of. */
export {
  createTriple,
  listTriples,
  modifyTriple,
  removeTriple,
  type TripleChanges,
  type TripleEntry,
  type TripleType,
} from "./triple-store.ts";

/**
 * 5.1: an enabled entry by its code. A post lists the workflow apps (and with `verbose`, the
 * steps) that send work to it: workflow definitions name no post on this platform yet.
 */
export async function tripleEntry(
  sql: Queryable,
  tenantId: string,
  entry: { type: TripleType; code: string; verbose?: boolean | undefined },
): Promise<TripleEntry & { apps?: never[]; nodes?: never[] }> {
  const found = await findTriple(sql, tenantId, entry.type, entry.code);
  const extra = entry.type === "post" ? { apps: [], ...(entry.verbose ? { nodes: [] } : {}) } : {};
  return { ...found, ...extra };
}

/** 5.3 changes only what the type lets change (and names the source); anything else is refused. */
export function checkTripleChanges(type: TripleType, changes: object): void {
  const allowed = modifiableFields(type);
  const refused = Object.keys(changes).find((field) => field !== "source" && !allowed.includes(field));
  if (refused) {
    throw localizedError(ErrorCode.InvalidArgument, "notModifiable", {
      field: refused,
      type: { term: type },
    });
  }
}
