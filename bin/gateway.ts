import { loadConfig } from "../runtime/config.ts";
import { runMain } from "../runtime/process-main.ts";
import { stopOnSignal } from "../runtime/shutdown.ts";
import { startGateway } from "./processes.ts";

// `npm run gateway`: the HTTP gateway alone, publishing jobs for separate worker processes.
runMain(async () => {
  const config = loadConfig();
  const running = await startGateway(config);
  stopOnSignal(running.platform.log, config.shutdownTimeoutMs, running.stop);
});
