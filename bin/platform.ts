import { loadConfig } from "../runtime/config.ts";
import { runMain } from "../runtime/process-main.ts";
import { stopOnSignal } from "../runtime/shutdown.ts";
import { startAllInOne } from "./processes.ts";

// `npm start`: the gateway and every worker in one process; embedded database and broker unless configured.
runMain(async () => {
  const config = loadConfig();
  const running = await startAllInOne(config);
  stopOnSignal(running.platform.log, config.shutdownTimeoutMs, running.stop);
});
