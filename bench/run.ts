import { writeFile } from "node:fs/promises";
import type { BenchCase, BenchResult } from "./bench-result.ts";
import { bpmnImportBench } from "./cases/bpmn-import.ts";
import { brokerBench } from "./cases/broker-throughput.ts";
import { consoleProcessPageBench } from "./cases/console-process-page.ts";
import { databaseClientBench } from "./cases/database-client.ts";
import { exportBench } from "./cases/export-throughput.ts";
import { feedBench } from "./cases/feed-sync.ts";
import { fileBench } from "./cases/file-throughput.ts";
import { gatewayBench } from "./cases/gateway-throughput.ts";
import { mixedLoadBench } from "./cases/mixed-load.ts";
import { notificationBench } from "./cases/notification-throughput.ts";
import { oauthBench } from "./cases/oauth-throughput.ts";
import { outboxRelayBench } from "./cases/outbox-relay.ts";
import { pushBench } from "./cases/push-held-polls.ts";
import { sealBench } from "./cases/seal-throughput.ts";
import { startBench } from "./cases/start-time.ts";
import { workflowListsBench } from "./cases/workflow-lists.ts";
import { workflowStatisticsBench } from "./cases/workflow-statistics.ts";
import { workflowBench } from "./cases/workflow-throughput.ts";

// `npm run bench [-- <name>…]`: runs the benchmarks, prints a table, writes bench-results.json.
const CASES: BenchCase[] = [
  brokerBench,
  gatewayBench,
  databaseClientBench,
  oauthBench,
  notificationBench,
  sealBench,
  fileBench,
  exportBench,
  feedBench,
  mixedLoadBench,
  startBench,
  workflowBench,
  workflowListsBench,
  workflowStatisticsBench,
  outboxRelayBench,
  pushBench,
  bpmnImportBench,
  consoleProcessPageBench,
];

const wanted = process.argv.slice(2);
const unknown = wanted.filter((name) => !CASES.some((c) => c.name === name));
if (unknown.length > 0) {
  console.error(`Unknown benchmark ${unknown.join(", ")}; known: ${CASES.map((c) => c.name).join(", ")}`);
  process.exit(2);
}
const selected = wanted.length > 0 ? CASES.filter((c) => wanted.includes(c.name)) : CASES;

const results: BenchResult[] = [];
for (const bench of selected) {
  console.error(`running ${bench.name}: ${bench.description}`);
  results.push(...(await bench.run()));
}

const bound = (r: BenchResult, target: number, unit: string) =>
  `${r.better === "lower" ? "≤" : "≥"} ${target}${unit ? ` ${unit}` : ""}`;
console.table(
  results.map((r) => ({
    name: r.name,
    value: `${r.value} ${r.unit}`,
    reference: `${r.reference} ${r.unit}`,
    ratio: r.ratio,
    // What pass follows: the ratio's bound, or the value's where the bar is absolute.
    target: r.bar === "ratio" ? `ratio ${bound(r, r.target, "")}` : bound(r, r.target, r.unit),
    pass: r.pass ? "yes" : "NO",
    // The issue's absolute figure, kept for reference only.
    absolute:
      r.absoluteTarget === undefined
        ? ""
        : `${bound(r, r.absoluteTarget, r.unit)}: ${r.absolutePass ? "held" : "not held"}`,
  })),
);
await writeFile(new URL("../bench-results.json", import.meta.url), `${JSON.stringify(results, null, 2)}\n`);
process.exit(results.every((r) => r.pass) ? 0 : 1);
