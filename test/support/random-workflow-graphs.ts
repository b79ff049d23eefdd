import fc from "fast-check";
import type { WorkflowDefinitionInput } from "../../contracts/workflow-definition.ts";

/** A structured piece of flow; random ones are built into graphs that pass the definition rules. */
export type Block =
  | { t: "task"; mode: "any" | "all" | "sequential"; people: number; veto: boolean }
  | { t: "seq"; items: Block[] }
  | { t: "xor"; branches: Block[] }
  | { t: "and"; branches: Block[] }
  | { t: "dyn"; body: Block }
  | { t: "sub" };

export const blockArbitrary = fc.letrec<{ block: Block }>((tie) => ({
  block: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.record({
      t: fc.constant("task" as const),
      mode: fc.constantFrom("any" as const, "all" as const, "sequential" as const),
      people: fc.integer({ min: 1, max: 3 }),
      veto: fc.boolean(),
    }),
    fc.record({
      t: fc.constant("seq" as const),
      items: fc.array(tie("block"), { minLength: 2, maxLength: 3 }),
    }),
    fc.record({
      t: fc.constant("xor" as const),
      branches: fc.array(tie("block"), { minLength: 2, maxLength: 3 }),
    }),
    fc.record({
      t: fc.constant("and" as const),
      branches: fc.array(tie("block"), { minLength: 2, maxLength: 3 }),
    }),
    fc.record({ t: fc.constant("dyn" as const), body: tie("block") }),
    fc.constant({ t: "sub" as const }),
  ),
})).block;

export function definitionOf(root: Block): WorkflowDefinitionInput {
  const nodes: WorkflowDefinitionInput["graph"]["nodes"] = [{ kind: "start", code: "start" }];
  const edges: WorkflowDefinitionInput["graph"]["edges"] = [];
  let count = 0;
  const next = (prefix: string) => `${prefix}${++count}`;
  const connect = (froms: string[], to: string, extra: { condition?: string; default?: boolean } = {}) => {
    for (const from of froms) edges.push({ from, to, ...extra });
  };
  /** Adds the block; returns its first node and the nodes its way out leaves from. */
  const build = (block: Block): { first: string; lasts: string[] } => {
    switch (block.t) {
      case "task": {
        const code = next("task");
        const people = Array.from({ length: block.people }, (_, i) => `user${(count + i) % 4}`);
        nodes.push({
          kind: "task",
          code,
          mode: block.mode,
          assignees: [{ accounts: people }],
          actions: block.veto
            ? [
                { id: 1, code: "agree", name: "Agree" },
                { id: 2, code: "veto", name: "Veto" },
              ]
            : undefined,
        });
        return { first: code, lasts: [code] };
      }
      case "seq": {
        const parts = block.items.map(build);
        for (let i = 1; i < parts.length; i++) connect(parts[i - 1]!.lasts, parts[i]!.first);
        return { first: parts[0]!.first, lasts: parts.at(-1)!.lasts };
      }
      case "xor": {
        const code = next("xor");
        nodes.push({ kind: "exclusive", code });
        const parts = block.branches.map(build);
        for (const [i, part] of parts.entries()) {
          connect(
            [code],
            part.first,
            i === parts.length - 1 ? { default: true } : { condition: `x == ${i}` },
          );
        }
        return { first: code, lasts: parts.flatMap((part) => part.lasts) };
      }
      case "and": {
        const split = next("and");
        const join = next("join");
        nodes.push({ kind: "parallel", code: split });
        const parts = block.branches.map(build);
        nodes.push({ kind: "join", code: join, split });
        for (const part of parts) {
          connect([split], part.first);
          connect(part.lasts, join);
        }
        return { first: split, lasts: [join] };
      }
      case "sub": {
        const code = next("sub");
        nodes.push({ kind: "subprocess", code, workflow: "child", data: {} });
        return { first: code, lasts: [code] };
      }
      case "dyn": {
        const split = next("dyn");
        const join = next("join");
        nodes.push({ kind: "dynamicParallel", code: split, list: "rows" });
        const body = build(block.body);
        nodes.push({ kind: "join", code: join, split });
        connect([split], body.first);
        connect(body.lasts, join);
        return { first: split, lasts: [join] };
      }
    }
  };
  const body = build(root);
  nodes.push({ kind: "end", code: "end" });
  connect(["start"], body.first);
  connect(body.lasts, "end");
  return {
    schema: {
      fields: [
        { name: "x", type: "number" },
        { name: "rows", type: "list", fields: [{ name: "n", type: "number" }] },
      ],
    },
    graph: { nodes, edges },
  };
}
