import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, it } from "node:test";
import { readBootstrapFile } from "../../runtime/bootstrap.ts";
import { ConfigError, loadConfig } from "../../runtime/config.ts";
import { tempDir } from "../support/platform.ts";

function configError(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (error) {
    assert.ok(error instanceof ConfigError);
    return error.message;
  }
  assert.fail("expected a configuration error");
}

describe("configuration from the environment", () => {
  it("has working defaults: embedded mode on port 8080", () => {
    const config = loadConfig({});
    assert.equal(config.http.port, 8080);
    assert.equal(config.database.url, undefined);
    assert.equal(config.broker.url, undefined);
    assert.equal(config.http.publicUrl, "http://localhost:8080");
  });

  it("names the variable and what it expects in one line", () => {
    assert.equal(
      configError({ PORT: "eighty" }),
      'Invalid environment variable PORT: expected an integer from 0 to 65535 (0 picks a free port), got "eighty"',
    );
    assert.match(configError({ PORT: "70000" }), /^Invalid environment variable PORT: /);
    assert.equal(
      configError({ LOG_LEVEL: "loud" }),
      'Invalid environment variable LOG_LEVEL: expected one of fatal, error, warn, info, debug, trace, silent, got "loud"',
    );
    assert.equal(
      configError({ AMQP_URL: "redis://127.0.0.1" }),
      'Invalid environment variable AMQP_URL: expected a URL starting with amqp:// or amqps://, got "redis://127.0.0.1"',
    );
    for (const message of [configError({ PORT: "1.5" }), configError({ WORKER_CONCURRENCY: "0" })]) {
      assert.equal(message.split("\n").length, 1);
    }
  });

  it("never prints a password from a URL", () => {
    const message = configError({ DATABASE_URL: "mysql://admin:hunter2@db/x" });
    assert.doesNotMatch(message, /hunter2/);
    assert.match(message, /DATABASE_URL/);
  });

  it("never prints a credential it refuses", () => {
    const message = configError({ ADMIN_TOKEN: "too-short-secret" });
    assert.doesNotMatch(message, /too-short-secret/);
    assert.match(
      message,
      /^Invalid environment variable ADMIN_TOKEN: expected .*, got a value that is not shown$/,
    );
  });

  it("takes files to an S3-compatible bucket only when one is named", () => {
    assert.equal(loadConfig({}).files.s3, undefined);
    const s3 = loadConfig({ FILES_S3_BUCKET: "campus-files", FILES_S3_ENDPOINT: "http://minio:9000" }).files
      .s3;
    assert.deepEqual(s3, {
      bucket: "campus-files",
      endpoint: "http://minio:9000",
      region: "us-east-1",
      accessKeyId: undefined,
      secretAccessKey: undefined,
      forcePathStyle: true,
    });
  });

  it("guards file tokens: 10 wrong tokens per file and address lock it out for 900 s unless set", () => {
    const defaults = loadConfig({});
    assert.deepEqual(
      [defaults.files.tokenMaxFailures, defaults.files.tokenLockoutSeconds, defaults.http.trustProxyHops],
      [10, 900, 0],
    );
    const set = loadConfig({
      FILE_TOKEN_MAX_FAILURES: "3",
      FILE_TOKEN_LOCKOUT_SECONDS: "60",
      TRUST_PROXY_HOPS: "2",
    });
    assert.deepEqual(
      [set.files.tokenMaxFailures, set.files.tokenLockoutSeconds, set.http.trustProxyHops],
      [3, 60, 2],
    );
    assert.equal(
      configError({ FILE_TOKEN_MAX_FAILURES: "0" }),
      'Invalid environment variable FILE_TOKEN_MAX_FAILURES: expected an integer from 1 to 1000, got "0"',
    );
    assert.match(
      configError({ FILE_TOKEN_LOCKOUT_SECONDS: "soon" }),
      /^Invalid environment variable FILE_TOKEN_LOCKOUT_SECONDS: /,
    );
    assert.match(configError({ TRUST_PROXY_HOPS: "-1" }), /^Invalid environment variable TRUST_PROXY_HOPS: /);
  });

  it("treats empty values as unset", () => {
    assert.equal(loadConfig({ PORT: "", DATABASE_URL: "" }).http.port, 8080);
  });
});

describe("bootstrap file", () => {
  it("names the field that breaks the schema", async () => {
    const dir = await tempDir();
    const file = join(dir.path, "bootstrap.json");
    try {
      await writeFile(
        file,
        JSON.stringify({
          tenants: [
            { domain: "ok.edu", name: "OK" },
            { domain: "Bad Domain", name: "x" },
          ],
        }),
      );
      await assert.rejects(readBootstrapFile(file), (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        assert.match(error.message, /tenants\.1\.domain: lower-case letters, digits, dots and hyphens/);
        return true;
      });
      // /admin/workflows/outbox would hide the tenant's /admin/workflows/{domain}.
      await writeFile(file, JSON.stringify({ tenants: [{ domain: "outbox", name: "Outbox" }] }));
      await assert.rejects(
        readBootstrapFile(file),
        /tenants\.0\.domain: reserved for the admin API's own paths/,
      );
      await writeFile(file, JSON.stringify({ tenant: [] }));
      await assert.rejects(readBootstrapFile(file), /Unrecognized key/);
      await writeFile(file, '{\n  "tenants": [],\n  users: []\n}');
      await assert.rejects(readBootstrapFile(file), (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        assert.match(error.message, /is not valid JSON: .* at line 3, column 3$/);
        return true;
      });
    } finally {
      await dir.remove();
    }
  });

  it("lists every field that breaks the schema at once, one line each", async () => {
    const dir = await tempDir();
    const file = join(dir.path, "bootstrap.json");
    try {
      await writeFile(
        file,
        JSON.stringify({
          tenants: [
            { domain: "Bad Domain", name: "x" },
            { domain: "ok.edu", name: "OK" },
            { domain: "Worse Domain", name: "y" },
          ],
        }),
      );
      await assert.rejects(readBootstrapFile(file), (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        const lines = error.message.split("\n");
        assert.equal(lines.length, 2, error.message);
        assert.match(lines[0]!, /: tenants\.0\.domain: lower-case letters/);
        assert.match(lines[1]!, /: tenants\.2\.domain: lower-case letters/);
        return true;
      });
      await writeFile(
        file,
        JSON.stringify({
          tenants: Array.from({ length: 25 }, (_, i) => ({ domain: `Bad ${i}`, name: "x" })),
        }),
      );
      await assert.rejects(readBootstrapFile(file), (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        const lines = error.message.split("\n");
        assert.equal(lines.length, 21);
        assert.match(lines[20]!, /and 5 more problems$/);
        return true;
      });
      await assert.rejects(readBootstrapFile(join(dir.path, "missing.json")), /cannot be read: ENOENT/);
    } finally {
      await dir.remove();
    }
  });

  it("names the application and the variable when a secret's variable is unset or short", async () => {
    const dir = await tempDir();
    const file = join(dir.path, "bootstrap.json");
    const application = { id: "kiosk", name: "Kiosk", secretEnv: "OP_TEST_KIOSK_SECRET" };
    try {
      await writeFile(file, JSON.stringify({ applications: [application] }));
      await assert.rejects(
        readBootstrapFile(file),
        /application kiosk: the variable OP_TEST_KIOSK_SECRET is not set/,
      );
      process.env.OP_TEST_KIOSK_SECRET = "short";
      await assert.rejects(readBootstrapFile(file), /OP_TEST_KIOSK_SECRET holds fewer than 32 characters/);
      process.env.OP_TEST_KIOSK_SECRET = "k".repeat(32);
      const bootstrap = await readBootstrapFile(file);
      assert.equal(bootstrap.applications[0]?.secret, "k".repeat(32));
      await writeFile(file, JSON.stringify({ applications: [{ ...application, secret: "s".repeat(32) }] }));
      await assert.rejects(
        readBootstrapFile(file),
        /secretEnv: give the secret or the variable holding it, not both/,
      );
    } finally {
      delete process.env.OP_TEST_KIOSK_SECRET;
      await dir.remove();
    }
  });

  it("refuses a workflow whose definition breaks a rule, naming the node", async () => {
    const dir = await tempDir();
    const file = join(dir.path, "bootstrap.json");
    const definition = {
      graph: {
        nodes: [
          { kind: "start", code: "s" },
          { kind: "task", code: "lost", assignees: [{ initiator: true }] },
          { kind: "end", code: "e" },
        ],
        edges: [
          { from: "s", to: "e" },
          { from: "lost", to: "e" },
        ],
      },
    };
    try {
      await writeFile(
        file,
        JSON.stringify({
          workflows: [{ tenant: "x.edu", code: "w", name: "W", versions: [{ definition }] }],
        }),
      );
      await assert.rejects(
        readBootstrapFile(file),
        /workflows\.0\.versions\.0\.definition\.graph: node lost: no start leads to it/,
      );
    } finally {
      await dir.remove();
    }
  });
});
