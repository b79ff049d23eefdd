import { z } from "zod";

/**
 * A workflow version's definition: its form data (`schema`), its flow (`graph`) and its messenger
 * callbacks (`events`). The format is the platform's own; the rules a graph must follow beyond this
 * shape (reachability, joins matching splits, expressions that parse, known fields) are checked by
 * `contracts/workflow-definition-rules.ts` when a version is deployed.
 */

const code = z
  .string()
  .regex(
    /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/,
    "a letter, then up to 63 letters, digits, dots, hyphens or underscores",
  );
const name = z.string().min(1).max(200);

export const FIELD_TYPES = [
  "string",
  "text",
  "number",
  "boolean",
  "date",
  "user",
  "users",
  "file",
  "thing",
  "list",
] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

/** A form field; a `list` holds rows of its own `fields` (a repeating section). */
export interface FieldDefinition {
  name: string;
  type: FieldType;
  label?: string;
  required?: boolean;
  fields?: FieldDefinition[];
}

/**
 * How deep list fields may nest in a form: far beyond what a form shows, and shallow enough that a
 * definition stays within the JSON nesting every body is held to (`JSON_MAX_DEPTH`), also inside the
 * bootstrap document that exports it.
 */
export const FIELD_NESTING_MAX = 8;

/** The deepest nesting of list fields: 1 for fields without lists. */
export function fieldNesting(fields: readonly FieldDefinition[]): number {
  return fields.reduce((deepest, field) => Math.max(deepest, 1 + fieldNesting(field.fields ?? [])), 0);
}

// Named, so that documents generated from it (JSON Schema, OpenAPI) refer to it rather than recurse for ever.
export const fieldSchema: z.ZodType<FieldDefinition> = z
  .lazy(() =>
    z
      .object({
        name: z
          .string()
          .regex(
            /^[A-Za-z_][A-Za-z0-9_]{0,63}$/,
            "a letter or underscore, then letters, digits or underscores",
          ),
        type: z.enum(FIELD_TYPES),
        label: z.string().max(200).optional(),
        required: z.boolean().optional(),
        fields: z.array(fieldSchema).max(200).optional(),
      })
      .strict()
      .refine((field) => (field.type === "list") === (field.fields !== undefined), {
        message: "a list field, and only a list field, has fields",
        path: ["fields"],
      }),
  )
  .meta({ id: "WorkflowField" });

/**
 * Who a step is for. Positions are `dept:post` with `*` for a whole row or column, as user filters
 * write them; `{initiator}` as the department stands for each department the initiator holds a post in.
 */
export const assigneeSchema = z.union([
  z.object({ position: z.string().regex(/^[^:\s]+:[^:\s]+$/, "dept:post") }).strict(),
  z.object({ accounts: z.array(z.string().min(1).max(100)).min(1).max(200) }).strict(),
  z.object({ initiator: z.literal(true) }).strict(),
  z.object({ handlerOf: code }).strict(),
  z.object({ field: z.string().min(1).max(64) }).strict(),
]);
export type Assignee = z.infer<typeof assigneeSchema>;

export const actionSchema = z
  .object({
    id: z.number().int().min(1).max(1_000_000),
    code,
    name,
    remarkRequired: z.boolean().default(false),
  })
  .strict();
export type WorkflowAction = z.infer<typeof actionSchema>;

const milestoneSchema = z.object({ name, percent: z.number().int().min(0).max(100) }).strict();

/** What a step with nobody to handle it does: stop the command with an error, or pass by itself. */
const whenNobodySchema = z.enum(["refuse", "skip"]).default("refuse");

const base = { code, name: name.optional(), milestone: milestoneSchema.optional() };

/** The initiator's own step (the form). Several entries: `automatic` ones are chosen by 3.2's `entrance`. */
const startNode = z
  .object({
    kind: z.literal("start"),
    ...base,
    automatic: z.boolean().default(false),
    actions: z.array(actionSchema).max(20).optional(),
  })
  .strict();

const taskNode = z
  .object({
    kind: z.literal("task"),
    ...base,
    assignees: z.array(assigneeSchema).min(1).max(20),
    /** `any`: one of the candidates handles it; `all`: each must (countersign); `sequential`: each, in turn. */
    mode: z.enum(["any", "all", "sequential"]).default("any"),
    actions: z.array(actionSchema).max(20).optional(),
    cc: z.array(assigneeSchema).max(20).optional(),
    /** Shown only with 2.8's `visibility=all`. */
    hidden: z.boolean().default(false),
    /** 4.5 `submit` may handle it as the system user. */
    allowSystemUser: z.boolean().default(false),
    /** 3.1 must name the item (`thing`) collected. */
    requiresThing: z.boolean().default(false),
    /** Seconds after assignment by which it should be handled (the task's `expireTime`). */
    expiresInSeconds: z.number().int().min(1).max(31_536_000).optional(),
    whenNobody: whenNobodySchema,
  })
  .strict();

/** Chooses one outgoing edge: the first whose `action` and `condition` match, else the `default` one. */
const exclusiveNode = z.object({ kind: z.literal("exclusive"), ...base }).strict();
/** Every outgoing edge starts a branch; its `join` waits for them all. */
const parallelNode = z.object({ kind: z.literal("parallel"), ...base }).strict();
/** One branch per row of the list field `list`, through the node's single outgoing edge. */
const dynamicParallelNode = z
  .object({ kind: z.literal("dynamicParallel"), ...base, list: z.string().min(1).max(64) })
  .strict();
/** Waits for every branch of the split `split` (a parallel or dynamic-parallel node). */
const joinNode = z.object({ kind: z.literal("join"), ...base, split: code }).strict();
/** Starts a process of another workflow of the tenant and waits for it to end. */
const subprocessNode = z
  .object({
    kind: z.literal("subprocess"),
    ...base,
    workflow: code,
    /** Fields of the child's data, each taken from a field of the parent's (child field → parent field). */
    data: z.record(z.string().max(64), z.string().max(64)).default({}),
  })
  .strict();
const endNode = z.object({ kind: z.literal("end"), ...base }).strict();

export const nodeSchema = z.discriminatedUnion("kind", [
  startNode,
  taskNode,
  exclusiveNode,
  parallelNode,
  dynamicParallelNode,
  joinNode,
  subprocessNode,
  endNode,
]);
export type WorkflowNode = z.infer<typeof nodeSchema>;
export type TaskNode = z.infer<typeof taskNode>;
export type StartNode = z.infer<typeof startNode>;
export type SubprocessNode = z.infer<typeof subprocessNode>;

export const edgeSchema = z
  .object({
    from: code,
    to: code,
    /** Taken only when the step before it was handled with this action code. */
    action: code.optional(),
    /** Taken only when this expression over the process data holds (`days > 3 && type == "sick"`). */
    condition: z.string().min(1).max(2000).optional(),
    /** An exclusive node's fallback, taken when no other edge matches. */
    default: z.boolean().default(false),
  })
  .strict();
export type WorkflowEdge = z.infer<typeof edgeSchema>;

/** What a messenger callback may be about: a process's life, and its tasks being created and handled. */
export const MESSENGER_EVENT_TYPES = [
  "started",
  "ended",
  "killed",
  "suspended",
  "resumed",
  "compensate",
  "taskCreated",
  "taskHandled",
] as const;
export type MessengerEventType = (typeof MESSENGER_EVENT_TYPES)[number];

/**
 * A messenger callback: the platform posts the event to `url` when it happens, signed with the
 * app's callback secret (docs/messenger-callbacks.md).
 */
export const messengerEventSchema = z
  .object({
    on: z.enum(MESSENGER_EVENT_TYPES),
    url: z.url().max(2048),
    name: z.string().max(200).optional(),
  })
  .strict();

/** A document template 2.10 fills with the process data. */
export const exportTemplateSchema = z.object({ id: code, name, uri: z.url().max(2048) }).strict();

export const workflowDefinitionSchema = z
  .object({
    schema: z
      .object({ fields: z.array(fieldSchema).max(500).default([]) })
      .strict()
      .refine((schema) => fieldNesting(schema.fields) <= FIELD_NESTING_MAX, {
        message: `list fields nest at most ${FIELD_NESTING_MAX} deep`,
        path: ["fields"],
      })
      .default({ fields: [] }),
    graph: z
      .object({
        nodes: z.array(nodeSchema).min(2).max(500),
        edges: z.array(edgeSchema).min(1).max(2000),
      })
      .strict(),
    events: z.array(messengerEventSchema).max(50).default([]),
    exportTemplates: z.array(exportTemplateSchema).max(20).default([]),
  })
  .strict();

export type WorkflowDefinition = z.infer<typeof workflowDefinitionSchema>;
export type WorkflowDefinitionInput = z.input<typeof workflowDefinitionSchema>;

/** The action a step offers when its definition lists none. */
export const DEFAULT_ACTION: WorkflowAction = {
  id: 1,
  code: "submit",
  name: "Submit",
  remarkRequired: false,
};
