/**
 * The split a converging parallel gateway closes, when the document does not name it (`op:split`):
 * walking back from the join, each join passed opens one more level and each split closes one;
 * the split that closes the join's own level is its split. An empty string when none does, which
 * the definition rules then refuse naming the join.
 */
export function joinedSplit(
  join: string,
  nodes: readonly { code: string; kind: string }[],
  edges: readonly { from: string; to: string }[],
): string {
  const kindOf = new Map(nodes.map((node) => [node.code, node.kind]));
  const before = new Map<string, string[]>();
  for (const edge of edges) before.set(edge.to, [...(before.get(edge.to) ?? []), edge.from]);
  const seen = new Set<string>();
  const queue: [string, number][] = (before.get(join) ?? []).map((code) => [code, 1]);
  while (queue.length > 0) {
    const [code, depth] = queue.shift()!;
    const key = `${code} ${depth}`;
    if (seen.has(key) || depth > nodes.length) continue;
    seen.add(key);
    const kind = kindOf.get(code);
    let level = depth;
    if (kind === "join") level++;
    if (kind === "parallel" || kind === "dynamicParallel") {
      level--;
      if (level === 0) return code;
    }
    for (const previous of before.get(code) ?? []) queue.push([previous, level]);
  }
  return "";
}
