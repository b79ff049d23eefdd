import { ConfigError, loadConfig } from "../runtime/config.ts";
import { runMain } from "../runtime/process-main.ts";
import { stopOnSignal } from "../runtime/shutdown.ts";
import { startWorker } from "./processes.ts";

// `npm run worker -- <queue> [<queue>…]` (or `--all`): consumes the named queues.
runMain(async () => {
  const config = loadConfig();
  const args = process.argv.slice(2);
  const queues = args.includes("--all") ? "all" : args;
  if (queues.length === 0) throw new ConfigError("Usage: npm run worker -- <queue> [<queue>...] | --all");
  const running = await startWorker(config, queues);
  stopOnSignal(running.platform.log, config.shutdownTimeoutMs, running.stop);
});
