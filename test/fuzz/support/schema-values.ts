import fc from "fast-check";
import { nastyJsonValue, nastyNumber, nastyScalar, nastyString } from "./arbitraries.ts";

/** The part of JSON Schema (as /openapi.json writes zod's schemas) the generator reads. */
export interface JsonSchema {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minItems?: number;
  maxItems?: number;
}

export type Components = Record<string, JsonSchema>;

const MAX_DEPTH = 6;

function resolve(schema: JsonSchema, components: Components): JsonSchema {
  let current = schema;
  for (let hops = 0; current.$ref && hops < 10; hops++) {
    current = components[current.$ref.replace("#/components/schemas/", "")] ?? {};
  }
  return current;
}

/** A string for a schema: what it asks for, or nasty text within its length. */
function stringFor(schema: JsonSchema): fc.Arbitrary<string> {
  const max = Math.min(schema.maxLength ?? 60, 60);
  const min = Math.min(schema.minLength ?? 0, max);
  const plain = fc.string({ minLength: min, maxLength: max });
  const shaped =
    schema.format === "uuid"
      ? fc.uuid()
      : schema.format === "email"
        ? fc.emailAddress()
        : schema.format === "uri" || schema.format === "url"
          ? fc.webUrl()
          : schema.pattern
            ? (patternString(schema.pattern) ?? plain)
            : plain;
  return fc.oneof({ weight: 3, arbitrary: shaped }, { weight: 2, arbitrary: nastyString });
}

function patternString(pattern: string): fc.Arbitrary<string> | undefined {
  try {
    return fc.stringMatching(new RegExp(pattern));
  } catch {
    return undefined;
  }
}

/** Just past a limit the schema states: one character, item or unit too many, or a fraction. */
function pastTheLimits(schema: JsonSchema, components: Components, depth: number): fc.Arbitrary<unknown>[] {
  const out: fc.Arbitrary<unknown>[] = [];
  if (schema.maxLength !== undefined && schema.maxLength < 20_000)
    out.push(fc.constant("x".repeat(schema.maxLength + 1)));
  if (schema.minLength !== undefined && schema.minLength > 0) out.push(fc.constant(""));
  if (schema.maxItems !== undefined && schema.items && schema.maxItems < 5_000) {
    out.push(
      fc.array(valueFor(schema.items, components, depth + 1, true), {
        minLength: schema.maxItems + 1,
        maxLength: schema.maxItems + 1,
        size: "xsmall",
      }),
    );
  }
  if (schema.maximum !== undefined) out.push(fc.constant(schema.maximum + 1));
  if (schema.minimum !== undefined)
    out.push(fc.constant(schema.minimum - 1), fc.constant(schema.minimum + 0.5));
  return out;
}

function plausible(
  schema: JsonSchema,
  components: Components,
  depth: number,
  tame: boolean,
): fc.Arbitrary<unknown> {
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives?.length)
    return fc.oneof(...alternatives.map((s) => valueFor(s, components, depth + 1, tame)));
  if (schema.allOf?.length) return valueFor(schema.allOf[0]!, components, depth + 1, tame);
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  if (types.length > 1)
    return fc.oneof(...types.map((type) => plausible({ ...schema, type }, components, depth, tame)));
  switch (types[0]) {
    case "string":
      return stringFor(schema);
    case "integer":
      return fc.integer({
        min: Math.max(schema.minimum ?? -1e6, -1e9),
        max: Math.min(schema.maximum ?? 1e6, 1e9),
      });
    case "number":
      return fc.double({ min: schema.minimum ?? -1e6, max: schema.maximum ?? 1e6, noNaN: true });
    case "boolean":
      return fc.boolean();
    case "null":
      return fc.constant(null);
    case "array": {
      const items = schema.items ? valueFor(schema.items, components, depth + 1, tame) : nastyJsonValue;
      const max = Math.min(schema.maxItems ?? 4, 4);
      return fc.array(items, { minLength: Math.min(schema.minItems ?? 0, max), maxLength: max });
    }
    case "object": {
      const properties = schema.properties ?? {};
      const record = fc.record(
        Object.fromEntries(
          Object.entries(properties).map(([name, property]) => [
            name,
            valueFor(property, components, depth + 1, tame),
          ]),
        ),
        { requiredKeys: (schema.required ?? []).filter((name) => name in properties) },
      );
      if (tame) return record;
      // Now and then a key the schema does not know, as a client with another version would send.
      return fc
        .tuple(record, fc.option(fc.tuple(nastyString, nastyScalar), { freq: 5 }))
        .map(([value, extra]) => (extra ? { ...value, [extra[0]]: extra[1] } : value));
    }
    default:
      return nastyJsonValue;
  }
}

/**
 * Values for a JSON Schema: mostly of its shape (so a request gets past the first check and into
 * the code behind it), sometimes of the wrong type or just past one of its limits, at any depth.
 * `tame` keeps to the shape, for the items of an oversized list.
 */
export function valueFor(
  schema: JsonSchema,
  components: Components,
  depth = 0,
  tame = false,
): fc.Arbitrary<unknown> {
  const resolved = resolve(schema, components);
  if (depth > MAX_DEPTH) return tame ? fc.constant(null) : nastyScalar;
  const shaped = plausible(resolved, components, depth, tame);
  if (tame) return shaped;
  const broken = pastTheLimits(resolved, components, depth);
  return fc.oneof(
    { weight: 8, arbitrary: shaped },
    { weight: 1, arbitrary: fc.oneof(nastyScalar, nastyNumber) },
    ...(broken.length > 0 ? [{ weight: 1, arbitrary: fc.oneof(...broken) }] : []),
  );
}
