import { ErrorCode, localizedError } from "../contracts/errors.ts";
import { jsonNestsDeeperThan, tooDeepDetail } from "../contracts/json-nesting.ts";
import type { FieldDefinition } from "../contracts/workflow-definition.ts";
import { WorkflowRefusal } from "../contracts/workflow-errors.ts";

const ISO_DATE = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

function fits(field: FieldDefinition, value: unknown, path: string): void {
  if (value === null) return;
  const wrong = (expected: string) => {
    throw new WorkflowRefusal("DATA_INVALID", `data.${path}: ${expected}`);
  };
  switch (field.type) {
    case "string":
    case "text":
    case "user":
      if (typeof value !== "string") wrong("a string");
      return;
    case "number":
      if (typeof value !== "number" || !Number.isFinite(value)) wrong("a number");
      return;
    case "boolean":
      if (typeof value !== "boolean") wrong("true or false");
      return;
    case "date":
      if (
        !(typeof value === "number" && Number.isInteger(value)) &&
        !(typeof value === "string" && ISO_DATE.test(value))
      ) {
        wrong("Unix seconds or an ISO 8601 date");
      }
      return;
    case "users":
      if (!Array.isArray(value) || value.some((item) => typeof item !== "string"))
        wrong("a list of accounts");
      return;
    case "file":
    case "thing":
      if (typeof value !== "string" && (typeof value !== "object" || Array.isArray(value)))
        wrong("a string or an object");
      return;
    case "list": {
      if (!Array.isArray(value)) wrong("a list of rows");
      (value as unknown[]).forEach((row, i) => {
        if (typeof row !== "object" || row === null || Array.isArray(row)) wrong(`row ${i}: an object`);
        checkFormData(field.fields ?? [], row as Record<string, unknown>, `${path}.${i}.`);
      });
      return;
    }
  }
}

/**
 * Checks a process's data against its version's form: every key a field of the form, every value
 * of its field's type. A mistake is refused naming the field; required fields are checked when the
 * form is submitted, not here, since a process may start with its form half filled.
 */
export function checkFormData(
  fields: readonly FieldDefinition[],
  data: Record<string, unknown>,
  prefix = "",
): void {
  const byName = new Map(fields.map((field) => [field.name, field]));
  for (const [name, value] of Object.entries(data)) {
    const field = byName.get(name);
    if (!field) throw new WorkflowRefusal("DATA_INVALID", `data.${prefix}${name}: no such field in the form`);
    fits(field, value, `${prefix}${name}`);
  }
}

/**
 * Reads 3.2's and 2.11's `data`: a JSON-serialised map (its arrays and objects nested at most
 * `maxDepth` deep), or a map in a JSON body (whose nesting the gateway bounded with the body's).
 */
export function parseFormData(value: unknown, maxDepth: number): Record<string, unknown> {
  let data = value;
  if (typeof value === "string") {
    if (jsonNestsDeeperThan(value, maxDepth)) {
      // The platform's limit, as for a JSON body (400), not a rule of the form.
      const detail = tooDeepDetail(maxDepth);
      throw localizedError(
        ErrorCode.InvalidArgument,
        "invalidParameter",
        { field: "data", detail },
        { field: "data" },
      );
    }
    try {
      data = JSON.parse(value);
    } catch {
      throw new WorkflowRefusal("DATA_INVALID", "data: not JSON");
    }
  }
  if (data === undefined || data === null) return {};
  if (typeof data !== "object" || Array.isArray(data))
    throw new WorkflowRefusal("DATA_INVALID", "data: a JSON object of field values");
  return data as Record<string, unknown>;
}
