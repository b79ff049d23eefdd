import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BenchCase, higherIsBetter } from "../bench-result.ts";
import { compareRates, startServer } from "../load.ts";

const PORT = 18_941;
const SECRET = "bench-client-secret-0123456789abcdefghijkl";

export const oauthBench: BenchCase = {
  name: "oauth",
  description:
    "client_credentials token issue against a bare Hono text route; a protected call against the same route unprotected",
  async run() {
    const dataDir = await mkdtemp(join(tmpdir(), "op-bench-"));
    const bootstrap = join(dataDir, "bootstrap.json");
    await writeFile(
      bootstrap,
      JSON.stringify({
        applications: [{ id: "bench-app", secret: SECRET, name: "Bench", scopes: ["signature"] }],
      }),
    );
    const embedded = { HOST: "127.0.0.1", LOG_LEVEL: "info", DATABASE_URL: "", AMQP_URL: "" };
    const bare = await startServer(new URL("../servers/bare-hono.ts", import.meta.url), PORT, {});
    const platform = await startServer(new URL("../servers/platform.ts", import.meta.url), PORT + 1, {
      ...embedded,
      DATA_DIR: join(dataDir, "platform"),
      BOOTSTRAP_FILE: bootstrap,
    });
    const routes = await startServer(new URL("../servers/protected-routes.ts", import.meta.url), PORT + 2, {
      ...embedded,
      DATA_DIR: join(dataDir, "routes"),
    });
    try {
      const issue = await compareRates(
        { url: `http://127.0.0.1:${bare.port}/text` },
        {
          url: `http://127.0.0.1:${platform.port}/oauth2/token`,
          method: "POST",
          headers: {
            "content-type": "application/x-www-form-urlencoded",
            authorization: `Basic ${Buffer.from(`bench-app:${SECRET}`).toString("base64")}`,
          },
          body: "grant_type=client_credentials&scope=signature",
        },
        5,
        3,
      );
      const check = await compareRates(
        { url: `http://127.0.0.1:${routes.port}/v1/open` },
        {
          url: `http://127.0.0.1:${routes.port}/v1/protected`,
          headers: { authorization: `Bearer ${routes.ready}` },
        },
        9,
        3,
      );
      return [
        higherIsBetter("oauth.client-credentials-issue", "tokens/s", issue.value, issue.reference, 0.1, {
          ratio: issue.ratio,
        }),
        higherIsBetter("oauth.protected-call", "req/s", check.value, check.reference, 0.8, {
          ratio: check.ratio,
        }),
      ];
    } finally {
      await Promise.all([bare.stop(), platform.stop(), routes.stop()]);
      await rm(dataDir, { recursive: true, force: true });
    }
  },
};
