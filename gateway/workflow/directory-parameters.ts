import { z } from "@hono/zod-openapi";
import { ErrorCode, localizedError } from "../../contracts/errors.ts";
import { issueField } from "../../contracts/validation-issue.ts";
import type { RequestParameters } from "./request-parameters.ts";

/** Spec 001 passes every parameter as a string; a JSON body may give booleans as booleans. */
export const booleanParameter = z.union([
  z.boolean(),
  z.enum(["true", "false"]).transform((v) => v === "true"),
]);

/** `meta`: JSON key/value text (or an object in a JSON body), string values only. */
export const metaParameter = z
  .union([z.string().max(10_000), z.record(z.string(), z.unknown())])
  .transform((value, context) => {
    let parsed: unknown = value;
    if (typeof value === "string") {
      try {
        parsed = JSON.parse(value);
      } catch {
        parsed = undefined;
      }
    }
    const entries =
      parsed && typeof parsed === "object" && !Array.isArray(parsed) ? Object.entries(parsed) : null;
    if (!entries || entries.length > 100 || entries.some(([, item]) => typeof item !== "string")) {
      context.addIssue({ code: "custom", message: "a JSON object of at most 100 string values" });
      return z.NEVER;
    }
    return Object.fromEntries(entries) as Record<string, string>;
  });

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 1000;

export const pageParameters = {
  start: z.coerce.number().int().min(0).max(10_000_000).default(0),
  limit: z.coerce.number().int().min(1).max(MAX_PAGE_SIZE).default(DEFAULT_PAGE_SIZE),
};

/** Comma (or, for keywords, space) separated values, each non-empty, at most `max` of them. */
export function listParameter(separator: RegExp, max: number, maxLength: number) {
  return z
    .string()
    .max(max * (maxLength + 1))
    .transform((text, context) => {
      const items = [...new Set(text.split(separator).map((item) => item.trim()))].filter(Boolean);
      if (items.length > max || items.some((item) => item.length > maxLength)) {
        context.addIssue({ code: "custom", message: `at most ${max} values of ${maxLength} characters` });
        return z.NEVER;
      }
      return items;
    });
}

/** Reads parameters with a schema; the first broken rule is reported in the caller's language. */
export function parseParameters<Schema extends z.ZodType>(
  schema: Schema,
  parameters: RequestParameters,
): z.infer<Schema> {
  const result = schema.safeParse(parameters);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const field = issueField(issue) || "(parameters)";
  throw localizedError(
    ErrorCode.InvalidArgument,
    "invalidParameter",
    { field, detail: issue.message },
    { field },
  );
}

/**
 * How spec 001's operations take `schema`'s parameters, for the document: in the query or in a
 * JSON, form or multipart body with the same names, a body's value winning (`requestParameters`);
 * each is optional in either place, as a required one may come in the other.
 */
export function documentedParameters(schema: z.ZodObject, name: string) {
  const optional = schema.partial();
  const body = optional.openapi(name, {
    description: "the parameters, in the query or in the body; a body's value wins",
  });
  return {
    query: optional,
    body: {
      content: {
        "application/json": { schema: body },
        "application/x-www-form-urlencoded": { schema: body },
        "multipart/form-data": { schema: body },
      },
    },
  };
}

/** The `{id}` of a process (serial number or id) or a task in a path. */
export const idParam = z.object({ id: z.string().min(1).max(64) });

/** Users named by account or id, comma separated. */
export const usersParameter = listParameter(/,/, 200, 360);
