import { z } from "@hono/zod-openapi";

/**
 * Keyset paging of the admin API's lists: each page ends with `next`, an opaque cursor holding the
 * sort key of its last item (base64url JSON of its parts), which `after` gives back for the page
 * that follows; never an offset, so a list changing between pages skips or repeats nothing that stayed.
 */
export const PAGE_LIMIT_MAX = 500;
/** Sort keys are short (domains, ids, accounts, codes); a cursor of one is far below this. */
const CURSOR_MAX = 4096;

function cursorParts(cursor: string, parts: number): string[] | undefined {
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined;
  let key: unknown;
  try {
    key = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    return undefined;
  }
  const valid = Array.isArray(key) && key.length === parts && key.every((part) => typeof part === "string");
  return valid ? (key as string[]) : undefined;
}

/** The query of a list whose sort key has `parts` parts: `limit` and `after`, checked at the edge. */
export function pageQuery(parts: number) {
  return z.object({
    limit: z.coerce
      .number()
      .int()
      .min(1)
      .max(PAGE_LIMIT_MAX)
      .default(100)
      .openapi({ description: `items per page, 1 to ${PAGE_LIMIT_MAX}` }),
    after: z
      .string()
      .max(CURSOR_MAX)
      .refine((cursor) => cursorParts(cursor, parts) !== undefined, "not a cursor this list gave")
      .optional()
      .openapi({ description: "the `next` of the page before; omitted: the first page" }),
  });
}

/** The sort key an `after` that passed `pageQuery` holds, or null for the first page. */
export function afterKey(after: string | undefined, parts: number): string[] | null {
  return after === undefined ? null : cursorParts(after, parts)!;
}

/**
 * The page of `rows`, read with a limit one above `limit` so a further page is known to exist:
 * its first `limit` rows shown by `view`, and the cursor after the last of them when more follow.
 */
export function pageOf<T, U>(
  rows: readonly T[],
  limit: number,
  keyOf: (row: T) => string[],
  view: (row: T) => U,
): { items: U[]; next: string | null } {
  const shown = rows.slice(0, limit);
  const last = shown.at(-1);
  const next =
    rows.length > limit && last !== undefined
      ? Buffer.from(JSON.stringify(keyOf(last))).toString("base64url")
      : null;
  return { items: shown.map(view), next };
}

/** The schema of a page of `item`, named `name` in the OpenAPI document. */
export function pageSchema<T extends z.ZodType>(item: T, name: string) {
  return z
    .object({
      items: z.array(item),
      next: z
        .string()
        .nullable()
        .openapi({ description: "the cursor of the next page, for `after`; null on the last page" }),
    })
    .openapi(name);
}
