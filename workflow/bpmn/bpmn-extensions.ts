import {
  type Assignee,
  FIELD_NESTING_MAX,
  type FieldDefinition,
  type WorkflowAction,
} from "../../contracts/workflow-definition.ts";
import { bpmnRefusal, extensionsOf, type ModdleElement, many } from "./bpmn-document.ts";

// What BPMN has no word for travels in the platform's extension elements (op:assignee, op:action,
// op:field, ...); these read them into the graph's terms and write the graph's terms back.

type Create = (type: string, properties?: Record<string, unknown>) => ModdleElement;

/** Drops properties left undefined, so a value the document lacks stays absent in the graph. */
export function defined<T extends Record<string, unknown>>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

export function readAssignees(element: ModdleElement, type: "op:Assignee" | "op:Cc"): Assignee[] {
  return extensionsOf(element, type).map((item) => {
    const accounts = many(item, "accounts").map((account) => account.name as string);
    return defined({
      position: item.position,
      initiator: item.initiator,
      handlerOf: item.handlerOf,
      field: item.field,
      accounts: accounts.length > 0 ? accounts : undefined,
    }) as Assignee;
  });
}

export function writeAssignee(create: Create, type: "op:Assignee" | "op:Cc", assignee: Assignee) {
  const { accounts, ...rest } = assignee as Assignee & { accounts?: string[] };
  return create(type, {
    ...rest,
    ...(accounts ? { accounts: accounts.map((name) => create("op:Account", { name })) } : {}),
  });
}

export function readActions(element: ModdleElement): WorkflowAction[] | undefined {
  const actions = extensionsOf(element, "op:Action").map(
    (item) =>
      defined({
        id: item.actionId,
        code: item.code,
        name: item.name,
        remarkRequired: item.remarkRequired,
      }) as WorkflowAction,
  );
  return actions.length > 0 ? actions : undefined;
}

export function writeAction(create: Create, action: WorkflowAction): ModdleElement {
  const { id, ...rest } = action;
  return create("op:Action", { actionId: id, ...rest });
}

/** The form's fields; nested deeper than a definition may hold them, refused before reading on. */
export function readFields(items: readonly ModdleElement[], depth = 1): FieldDefinition[] {
  return items.map((item) => {
    const nested = many(item, "fields");
    if (nested.length > 0 && depth >= FIELD_NESTING_MAX) {
      throw bpmnRefusal(`field ${String(item.name)}: list fields nest at most ${FIELD_NESTING_MAX} deep`);
    }
    return defined({
      name: item.name,
      type: item.type,
      label: item.label,
      required: item.required,
      fields: nested.length > 0 || item.type === "list" ? readFields(nested, depth + 1) : undefined,
    }) as FieldDefinition;
  });
}

export function writeField(create: Create, field: FieldDefinition): ModdleElement {
  const { fields, ...rest } = field;
  return create("op:Field", {
    ...rest,
    ...(fields ? { fields: fields.map((nested) => writeField(create, nested)) } : {}),
  });
}

/** A step's milestone, when its element names one. */
export function readMilestone(element: ModdleElement) {
  const [item] = extensionsOf(element, "op:Milestone");
  return item ? { name: item.name as string, percent: item.percent as number } : undefined;
}
