import type {
  FieldDefinition,
  WorkflowDefinition,
  WorkflowEdge,
  WorkflowNode,
} from "./workflow-definition.ts";
import { ExpressionError, fieldsRead, parseExpression } from "./workflow-expression.ts";

/** A rule a definition breaks: the node (or edge) and what is wrong, in words an author can act on. */
export interface DefinitionProblem {
  rule:
    | "duplicate-code"
    | "entry"
    | "no-end"
    | "dangling-edge"
    | "edge-into-start"
    | "edge-out-of-end"
    | "no-way-out"
    | "unreachable"
    | "no-end-reachable"
    | "split-outgoing"
    | "join-without-split"
    | "split-without-join"
    | "branch-escapes"
    | "expression"
    | "unknown-field"
    | "unknown-action"
    | "unknown-step"
    | "default-edges";
  node?: string;
  message: string;
}

const SPLITS = new Set(["parallel", "dynamicParallel"]);
const HANDLED = new Set(["start", "task"]);

function describeEdge(edge: WorkflowEdge): string {
  return `the edge ${edge.from} → ${edge.to}`;
}

/** The form's fields by name, nested lists' fields too (by their own names). */
function fieldsByName(
  fields: readonly FieldDefinition[],
  into = new Map<string, FieldDefinition>(),
): Map<string, FieldDefinition> {
  for (const field of fields) {
    into.set(field.name, field);
    if (field.fields) fieldsByName(field.fields, into);
  }
  return into;
}

/**
 * Every rule the definition breaks beyond its shape (which zod checks): each node reachable from
 * an entry and able to reach an end, edges between existing nodes, each split with exactly one join
 * whose branches stay inside it, conditions that parse and read known fields, action codes the step
 * offers. An empty list means the definition can be deployed.
 */
export function definitionProblems(definition: WorkflowDefinition): DefinitionProblem[] {
  const problems: DefinitionProblem[] = [];
  const { nodes, edges } = definition.graph;
  const byCode = new Map<string, WorkflowNode>();
  for (const node of nodes) {
    if (byCode.has(node.code)) {
      problems.push({
        rule: "duplicate-code",
        node: node.code,
        message: `node ${node.code}: another node has the same code`,
      });
    }
    byCode.set(node.code, node);
  }
  const fields = fieldsByName(definition.schema.fields);

  const defaultEntries = nodes.filter((node) => node.kind === "start" && !node.automatic);
  if (defaultEntries.length !== 1) {
    problems.push({
      rule: "entry",
      message: `a workflow has exactly one start that is not automatic (its default entry); this one has ${defaultEntries.length}`,
    });
  }
  if (!nodes.some((node) => node.kind === "end"))
    problems.push({ rule: "no-end", message: "a workflow needs an end node" });

  const outgoing = new Map<string, WorkflowEdge[]>();
  const incoming = new Map<string, WorkflowEdge[]>();
  for (const edge of edges) {
    const from = byCode.get(edge.from);
    const to = byCode.get(edge.to);
    if (!from || !to) {
      const missing = from ? edge.to : edge.from;
      problems.push({
        rule: "dangling-edge",
        node: edge.from,
        message: `${describeEdge(edge)}: there is no node ${missing}`,
      });
      continue;
    }
    if (to.kind === "start") {
      problems.push({
        rule: "edge-into-start",
        node: to.code,
        message: `node ${to.code}: a start has no incoming edges`,
      });
    }
    if (from.kind === "end") {
      problems.push({
        rule: "edge-out-of-end",
        node: from.code,
        message: `node ${from.code}: an end has no outgoing edges`,
      });
    }
    outgoing.set(edge.from, [...(outgoing.get(edge.from) ?? []), edge]);
    incoming.set(edge.to, [...(incoming.get(edge.to) ?? []), edge]);
    if (edge.action !== undefined) {
      const actions = HANDLED.has(from.kind)
        ? ((from as { actions?: { code: string }[] }).actions ?? [{ code: "submit" }])
        : [];
      if (!actions.some((action) => action.code === edge.action)) {
        problems.push({
          rule: "unknown-action",
          node: from.code,
          message: `${describeEdge(edge)}: node ${from.code} offers no action ${edge.action}`,
        });
      }
    }
    if (edge.condition !== undefined) {
      try {
        for (const name of fieldsRead(parseExpression(edge.condition))) {
          if (!fields.has(name)) {
            problems.push({
              rule: "unknown-field",
              node: from.code,
              message: `${describeEdge(edge)}: the condition reads ${name}, which is no field of the form`,
            });
          }
        }
      } catch (error) {
        if (!(error instanceof ExpressionError)) throw error;
        problems.push({
          rule: "expression",
          node: from.code,
          message: `${describeEdge(edge)}: the condition does not parse: ${error.message}`,
        });
      }
    }
  }

  for (const node of nodes) {
    const out = outgoing.get(node.code) ?? [];
    if (node.kind !== "end" && out.length === 0) {
      problems.push({
        rule: "no-way-out",
        node: node.code,
        message: `node ${node.code}: has no outgoing edge`,
      });
    }
    if (out.filter((edge) => edge.default).length > 1) {
      problems.push({
        rule: "default-edges",
        node: node.code,
        message: `node ${node.code}: has more than one default edge`,
      });
    }
    if (
      node.kind === "parallel" &&
      (out.length < 2 || out.some((edge) => edge.condition || edge.action || edge.default))
    ) {
      problems.push({
        rule: "split-outgoing",
        node: node.code,
        message: `node ${node.code}: a parallel split has two or more outgoing edges, without conditions or actions`,
      });
    }
    if (node.kind === "dynamicParallel") {
      if (out.length !== 1) {
        problems.push({
          rule: "split-outgoing",
          node: node.code,
          message: `node ${node.code}: a dynamic parallel split has exactly one outgoing edge`,
        });
      }
      if (fields.get(node.list)?.type !== "list") {
        problems.push({
          rule: "unknown-field",
          node: node.code,
          message: `node ${node.code}: ${node.list} is no list field of the form`,
        });
      }
    }
    for (const assignee of node.kind === "task" ? [...node.assignees, ...(node.cc ?? [])] : []) {
      if ("handlerOf" in assignee && !HANDLED.has(byCode.get(assignee.handlerOf)?.kind ?? "")) {
        problems.push({
          rule: "unknown-step",
          node: node.code,
          message: `node ${node.code}: handlerOf names ${assignee.handlerOf}, which is no step`,
        });
      }
      if (
        "field" in assignee &&
        !["user", "users", "string"].includes(fields.get(assignee.field)?.type ?? "")
      ) {
        problems.push({
          rule: "unknown-field",
          node: node.code,
          message: `node ${node.code}: assignees come from ${assignee.field}, which is no user, users or string field of the form`,
        });
      }
    }
  }

  const reachableFromEntries = walk(
    nodes.filter((node) => node.kind === "start").map((node) => node.code),
    (code) => (outgoing.get(code) ?? []).map((edge) => edge.to),
  );
  const reachingAnEnd = walk(
    nodes.filter((node) => node.kind === "end").map((node) => node.code),
    (code) => (incoming.get(code) ?? []).map((edge) => edge.from),
  );
  for (const node of nodes) {
    if (!reachableFromEntries.has(node.code)) {
      problems.push({
        rule: "unreachable",
        node: node.code,
        message: `node ${node.code}: no start leads to it`,
      });
    } else if (
      node.kind !== "end" &&
      !reachingAnEnd.has(node.code) &&
      (outgoing.get(node.code)?.length ?? 0) > 0
    ) {
      problems.push({
        rule: "no-end-reachable",
        node: node.code,
        message: `node ${node.code}: no end can be reached from it`,
      });
    }
  }

  problems.push(...splitProblems(nodes, byCode, outgoing, incoming));
  return problems;
}

/** Each split has one join; each branch reaches that join and nothing outside enters a branch. */
function splitProblems(
  nodes: readonly WorkflowNode[],
  byCode: Map<string, WorkflowNode>,
  outgoing: Map<string, WorkflowEdge[]>,
  incoming: Map<string, WorkflowEdge[]>,
): DefinitionProblem[] {
  const problems: DefinitionProblem[] = [];
  const joinsOf = new Map<string, string[]>();
  for (const node of nodes) {
    if (node.kind !== "join") continue;
    if (!SPLITS.has(byCode.get(node.split)?.kind ?? "")) {
      problems.push({
        rule: "join-without-split",
        node: node.code,
        message: `node ${node.code}: joins ${node.split}, which is no parallel split`,
      });
      continue;
    }
    joinsOf.set(node.split, [...(joinsOf.get(node.split) ?? []), node.code]);
  }
  for (const split of nodes) {
    if (!SPLITS.has(split.kind)) continue;
    const joins = joinsOf.get(split.code) ?? [];
    if (joins.length !== 1) {
      problems.push({
        rule: "split-without-join",
        node: split.code,
        message: `node ${split.code}: a split has exactly one join naming it; it has ${joins.length}`,
      });
      continue;
    }
    const join = joins[0]!;
    // The branches: everything reachable from the split without passing its join.
    const region = walk(
      (outgoing.get(split.code) ?? []).map((edge) => edge.to),
      (code) => (code === join ? [] : (outgoing.get(code) ?? []).map((edge) => edge.to)),
    );
    if (!region.has(join)) {
      problems.push({
        rule: "branch-escapes",
        node: split.code,
        message: `node ${split.code}: no branch reaches its join ${join}`,
      });
      continue;
    }
    for (const code of region) {
      if (code === join) continue;
      if (byCode.get(code)?.kind === "end") {
        problems.push({
          rule: "branch-escapes",
          node: code,
          message: `node ${code}: a branch of ${split.code} ends before its join ${join}`,
        });
      }
      if (code === split.code) {
        problems.push({
          rule: "branch-escapes",
          node: split.code,
          message: `node ${split.code}: a branch leads back to its own split`,
        });
      }
      for (const edge of incoming.get(code) ?? []) {
        if (edge.from !== split.code && !region.has(edge.from)) {
          problems.push({
            rule: "branch-escapes",
            node: code,
            message: `node ${code}: inside the branches of ${split.code}, but entered from ${edge.from} outside them`,
          });
        }
      }
    }
    for (const edge of incoming.get(join) ?? []) {
      if (!region.has(edge.from)) {
        problems.push({
          rule: "branch-escapes",
          node: join,
          message: `node ${join}: entered from ${edge.from}, outside the branches of ${split.code}`,
        });
      }
    }
  }
  return problems;
}

function walk(starts: readonly string[], next: (code: string) => readonly string[]): Set<string> {
  const seen = new Set<string>(starts);
  const queue = [...starts];
  while (queue.length > 0) {
    for (const code of next(queue.pop()!)) {
      if (!seen.has(code)) {
        seen.add(code);
        queue.push(code);
      }
    }
  }
  return seen;
}
