import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, it } from "node:test";
import { freePort, tempDir } from "../support/platform.ts";
import { waitFor } from "../support/wait.ts";

const ROOT = new URL("../..", import.meta.url).pathname;
const SECRET = "log-test-secret-0123456789abcdefghijklmnop";
const PASSWORD = "a password nobody should read in a log";
const ADMIN_TOKEN = "log-test-admin-token-0123456789abcdefghij";

describe("logs", () => {
  it("never carry a client secret, password, access token, refresh token or operator token, even at trace", async () => {
    const dir = await tempDir();
    const port = await freePort();
    const bootstrap = join(dir.path, "bootstrap.json");
    await writeFile(
      bootstrap,
      JSON.stringify({
        tenants: [{ domain: "example.edu", name: "Example" }],
        applications: [
          { id: "log-app", secret: SECRET, name: "Log", scopes: ["send_notification", "profile"] },
        ],
        users: [{ tenant: "example.edu", account: "erin", name: "Erin", password: PASSWORD }],
      }),
    );
    const child = spawn(process.execPath, ["--import", "tsx", "bin/platform.ts"], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH,
        DATA_DIR: dir.path,
        PORT: String(port),
        LOG_LEVEL: "trace",
        BOOTSTRAP_FILE: bootstrap,
        ADMIN_TOKEN,
      },
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    const url = `http://127.0.0.1:${port}`;
    let tokens: { access_token: string; refresh_token: string } | undefined;
    try {
      await waitFor(
        async () => {
          try {
            return (await fetch(`${url}/healthz`)).ok;
          } catch {
            return false;
          }
        },
        30_000,
        "the platform",
      );
      const basic = `Basic ${Buffer.from(`log-app:${SECRET}`).toString("base64")}`;
      const form = { "content-type": "application/x-www-form-urlencoded", authorization: basic };
      tokens = (await (
        await fetch(`${url}/oauth2/token`, {
          method: "POST",
          headers: form,
          body: new URLSearchParams({ grant_type: "password", username: "erin", password: PASSWORD }),
        })
      ).json()) as { access_token: string; refresh_token: string };
      assert.ok(tokens.access_token && tokens.refresh_token);
      await fetch(`${url}/oauth2/token`, {
        method: "POST",
        headers: form,
        body: new URLSearchParams({ grant_type: "password", username: "erin", password: `${PASSWORD}!` }),
      });
      await fetch(`${url}/oauth2/token`, {
        method: "POST",
        headers: form,
        body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: tokens.refresh_token }),
      });
      await fetch(`${url}/apis/v2/me/profile?access_token=${tokens.access_token}`);
      await fetch(`${url}/apis/v2/me/profile`, {
        headers: { authorization: `Bearer ${tokens.access_token}x` },
      });
      await fetch(`${url}/admin/applications/log-app/secret`, {
        method: "POST",
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      });
      await waitFor(
        () => output.includes('"path":"/admin/applications/log-app/secret"'),
        5000,
        "the request log",
      );
    } finally {
      child.kill("SIGTERM");
      await once(child, "exit");
      await dir.remove();
    }
    assert.match(output, /"path":"\/oauth2\/token"/, "requests were logged");
    const leaks = [
      SECRET,
      PASSWORD,
      tokens!.access_token,
      tokens!.refresh_token,
      ADMIN_TOKEN,
      "access_token=",
    ];
    for (const secret of leaks)
      assert.ok(!output.includes(secret), `the log contains ${secret.slice(0, 12)}…`);
    assert.doesNotMatch(output, /eyJ[\w-]+\.eyJ[\w-]+\.[\w-]+/, "no JWT of any kind");
  });
});
