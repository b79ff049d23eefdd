import { startAllInOne } from "../../bin/processes.ts";
import { loadConfig } from "../../runtime/config.ts";

// The platform as `npm start` runs it, for the gateway benchmark; tells the parent when it listens.
const running = await startAllInOne(loadConfig());
process.send?.("listening");
process.on("SIGTERM", () => void running.stop().then(() => process.exit(0)));
