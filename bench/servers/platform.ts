import { startAllInOne, startGateway, startWorker } from "../../bin/processes.ts";
import { loadConfig } from "../../runtime/config.ts";

// The platform as `npm start` runs it, or one of its distributed processes when BENCH_PROCESS says
// `gateway` or `worker` (every queue); tells the parent when it is up.
const config = loadConfig();
const kind = process.env.BENCH_PROCESS ?? "all-in-one";
const running =
  kind === "gateway"
    ? await startGateway(config)
    : kind === "worker"
      ? await startWorker(config, "all")
      : await startAllInOne(config);
process.send?.("listening");
process.on("SIGTERM", () => void running.stop().then(() => process.exit(0)));
