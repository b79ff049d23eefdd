/**
 * A test reporter that says nothing until the run ends, then lists what was skipped and why,
 * grouped by reason: the tests a machine without a service or a system package could not run.
 * Plain JavaScript: node loads reporters before `--import tsx` takes effect.
 *
 * @param {AsyncIterable<{ type: string, data: { skip?: string | boolean } }>} source
 */
export default async function* skipSummary(source) {
  const reasons = new Map();
  for await (const event of source) {
    if (event.type !== "test:pass" && event.type !== "test:fail") continue;
    const skip = event.data.skip;
    if (skip === undefined || skip === false) continue;
    const reason = skip === true ? "skipped" : skip;
    reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
  }
  if (reasons.size === 0) return;
  const total = [...reasons.values()].reduce((sum, count) => sum + count, 0);
  yield `\n${total} tests skipped on this machine (CI=true runs them all, failing where something is missing):\n`;
  for (const [reason, count] of [...reasons].sort((a, b) => b[1] - a[1])) yield `  ${count} × ${reason}\n`;
}
