import assert from "node:assert/strict";
import { validate } from "@readme/openapi-parser";
import postgres from "postgres";
import { startTestPlatform, type TestPlatform, testModes, withBootstrap } from "../support/platform.ts";
import { TcpProxy } from "../support/rabbit.ts";
import { realServices } from "../support/services.ts";
import { after, before, describe, it } from "../support/skippable-suites.ts";
import { waitFor } from "../support/wait.ts";

const BODY_LIMIT = 4096;

for (const mode of await testModes()) {
  describe(`platform (${mode.name})`, { skip: mode.skip }, () => {
    let platform: TestPlatform;
    let cleanup: () => Promise<void>;
    let env: Record<string, string>;

    before(async () => {
      const prepared = await mode.prepare();
      cleanup = prepared.cleanup;
      env = {
        ...(await withBootstrap(prepared.env, {
          tenants: [
            { domain: "example.edu", name: "Example University", copyright: "© Example" },
            { domain: "other.edu", name: "Other College" },
          ],
        })),
        BODY_LIMIT_BYTES: String(BODY_LIMIT),
      };
      platform = await startTestPlatform(env);
    });

    after(async () => {
      await platform?.stop();
      await cleanup?.();
    });

    it("answers /healthz and /readyz", async () => {
      const health = await fetch(`${platform.url}/healthz`);
      assert.equal(health.status, 200);
      assert.deepEqual(await health.json(), { status: "ok" });
      const ready = await fetch(`${platform.url}/readyz`);
      assert.equal(ready.status, 200);
      assert.deepEqual(await ready.json(), {
        status: "ready",
        database: true,
        broker: true,
        draining: false,
      });
    });

    it("answers an unknown route with the error envelope", async () => {
      const response = await fetch(`${platform.url}/v1/nothing-here`);
      assert.equal(response.status, 404);
      assert.deepEqual(await response.json(), {
        errno: 10004,
        ecode: "NOT_FOUND",
        error: "no route for GET /v1/nothing-here",
        total: 0,
        entities: [],
      });
    });

    it("shows a page at / that points to the reference, the console and the health checks", async () => {
      const response = await fetch(`${platform.url}/`);
      assert.equal(response.status, 200);
      assert.match(response.headers.get("content-type") ?? "", /^text\/html/);
      const page = await response.text();
      for (const link of ["/docs", "/openapi.json", "/healthz", "/readyz"])
        assert.ok(page.includes(`href="${link}"`), link);
      assert.match(page, /off until the platform runs with <code>ADMIN_TOKEN<\/code>/);
    });

    it("says why the admin API and the console answer 404 when ADMIN_TOKEN is unset", async () => {
      for (const path of ["/admin/tenants", "/admin", "/console", "/console/sign-in"]) {
        const response = await fetch(`${platform.url}${path}`);
        assert.equal(response.status, 404, path);
        const body = (await response.json()) as { error: string };
        assert.match(
          body.error,
          /the admin API and the console are off: start the platform with ADMIN_TOKEN/,
          path,
        );
      }
    });

    it("keeps a caller's request id and makes one otherwise", async () => {
      const given = await fetch(`${platform.url}/healthz`, { headers: { "x-request-id": "trace-abc-123" } });
      assert.equal(given.headers.get("x-request-id"), "trace-abc-123");
      const made = await fetch(`${platform.url}/healthz`);
      assert.match(made.headers.get("x-request-id") ?? "", /^[0-9a-f-]{36}$/);
    });

    it("refuses a body over the limit with 413 and the envelope, declared or streamed", async () => {
      const declared = await fetch(`${platform.url}/v1/anything`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ pad: "x".repeat(BODY_LIMIT) }),
      });
      assert.equal(declared.status, 413);
      const body = (await declared.json()) as { ecode: string; error: string };
      assert.equal(body.ecode, "PAYLOAD_TOO_LARGE");
      assert.equal(body.error, `request body is larger than ${BODY_LIMIT} bytes`);

      const chunks = new ReadableStream({
        start(controller) {
          for (let i = 0; i < 8; i++) controller.enqueue(new TextEncoder().encode("y".repeat(1024)));
          controller.close();
        },
      });
      const streamed = await fetch(`${platform.url}/v1/anything`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: chunks,
        duplex: "half",
      } as RequestInit);
      assert.equal(streamed.status, 413);
    });

    it("serves a valid OpenAPI 3.1 document and a reference page with local assets", async () => {
      const document = (await (await fetch(`${platform.url}/openapi.json`)).json()) as Record<
        string,
        unknown
      >;
      assert.equal(document.openapi, "3.1.0");
      const result = await validate(structuredClone(document) as never);
      assert.ok(result.valid, JSON.stringify(result));
      const paths = document.paths as Record<string, unknown>;
      assert.ok(paths["/healthz"] && paths["/readyz"]);
      assert.ok(
        paths["/v1/signature/{eSignCode}"] && paths["/file/{id}"],
        "streamed routes are documented too",
      );

      const page = await fetch(`${platform.url}/docs`);
      assert.equal(page.status, 200);
      const html = await page.text();
      assert.match(html, /\/openapi\.json/);
      const asset = await fetch(`${platform.url}/docs/assets/swagger-ui-bundle.js`);
      assert.equal(asset.status, 200);
      assert.ok((await asset.arrayBuffer()).byteLength > 100_000);
      assert.equal((await fetch(`${platform.url}/docs/assets/..%2Fpackage.json`)).status, 404);
    });

    it("applies the bootstrap file, and applying it again changes nothing", async () => {
      const sql = platform.running.platform.db.sql;
      const first = await sql`select domain, name, copyright, updated_at from tenants order by domain`;
      assert.deepEqual(
        first.map((t) => [t.domain, t.name, t.copyright]),
        [
          ["example.edu", "Example University", "© Example"],
          ["other.edu", "Other College", null],
        ],
      );
      if (mode.name === "distributed") {
        // A second process starting with the same file (the embedded database has room for one).
        const second = await startTestPlatform(env);
        await second.stop();
        const again = await sql`select domain, updated_at from tenants order by domain`;
        assert.deepEqual(
          again.map((t) => t.updated_at.getTime()),
          first.map((t) => t.updated_at.getTime()),
        );
      }
    });
  });
}

describe("readiness follows the broker connection", {
  skip: (await realServices()) ? false : "RabbitMQ unreachable",
}, () => {
  it("reports not ready while RabbitMQ is unreachable and ready again after it returns", async () => {
    const services = (await realServices())!;
    const [mode] = (await testModes()).filter((m) => m.name === "distributed");
    const prepared = await mode!.prepare();
    const proxy = await TcpProxy.start(new URL(services.amqpUrl));
    const amqp = new URL(services.amqpUrl);
    amqp.port = String(proxy.port);
    const platform = await startTestPlatform({ ...prepared.env, AMQP_URL: amqp.toString() });
    try {
      assert.equal((await fetch(`${platform.url}/readyz`)).status, 200);
      proxy.cut();
      await waitFor(async () => (await fetch(`${platform.url}/readyz`)).status === 503, 5000, "not ready");
      const body = (await (await fetch(`${platform.url}/readyz`)).json()) as Record<string, unknown>;
      assert.equal(body.broker, false);
      assert.equal(body.database, true);
      proxy.restore();
      await waitFor(
        async () => (await fetch(`${platform.url}/readyz`)).status === 200,
        15_000,
        "ready again",
      );
    } finally {
      await platform.stop();
      await proxy.close();
      await prepared.cleanup();
    }
  });
});

describe("readiness follows the database", {
  skip: (await realServices()) ? false : "Postgres unreachable",
}, () => {
  it("reports not ready when the database cannot be reached", async () => {
    const [mode] = (await testModes()).filter((m) => m.name === "distributed");
    const prepared = await mode!.prepare();
    const platform = await startTestPlatform(prepared.env);
    try {
      // Terminate the platform's connections and forbid new ones, as a database outage would.
      const name = new URL(prepared.env.DATABASE_URL!).pathname.slice(1);
      const admin = postgres((await realServices())!.databaseUrl, { max: 1, onnotice: () => {} });
      await admin.unsafe(`alter database ${name} with allow_connections false`);
      // Waits for each backend to end, so none is left to answer the probe.
      await admin`select pg_terminate_backend(pid, 5000) from pg_stat_activity where datname = ${name}`;
      const response = await fetch(`${platform.url}/readyz`);
      assert.equal(response.status, 503);
      assert.equal(((await response.json()) as Record<string, unknown>).database, false);
      await admin.unsafe(`alter database ${name} with allow_connections true`);
      await admin.end();
      // A connection attempt begun before the database let them in may still fail a probe queued on it.
      await waitFor(
        async () => (await fetch(`${platform.url}/readyz`)).status === 200,
        10_000,
        "ready again",
      );
    } finally {
      await platform.stop();
      await prepared.cleanup();
    }
  });
});
