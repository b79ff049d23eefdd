import { startAllInOne, startGateway, startWorker } from "../../bin/processes.ts";
import { loadConfig } from "../../runtime/config.ts";

// The platform as `npm start` runs it, or one of its distributed processes when BENCH_PROCESS says
// `gateway` or `worker` (the queues in BENCH_QUEUES, separated by commas, else every queue); tells
// the parent when it is up.
const config = loadConfig();
const kind = process.env.BENCH_PROCESS ?? "all-in-one";
const queues = process.env.BENCH_QUEUES ? process.env.BENCH_QUEUES.split(",") : "all";
const running =
  kind === "gateway"
    ? await startGateway(config)
    : kind === "worker"
      ? await startWorker(config, queues)
      : await startAllInOne(config);
process.send?.("listening");
// Asked "memory", answers the heap as it stands after a full collection (when the process runs
// with --expose-gc), which only retained objects survive: the figure a leak makes grow.
process.on("message", (message) => {
  if (message !== "memory") return;
  globalThis.gc?.();
  process.send?.({ memory: process.memoryUsage() });
});
process.on("SIGTERM", () => void running.stop().then(() => process.exit(0)));
