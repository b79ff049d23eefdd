import assert from "node:assert/strict";
import { startTestPlatform, type TestPlatform, tempDir, withBootstrap } from "../support/platform.ts";
import { after, before, describe, it } from "../support/skippable-suites.ts";

const APP = { id: "headers-app", secret: "headers-app-secret-0123456789abcdefghijk" };

describe("headers of every gateway answer", () => {
  let platform: TestPlatform;
  let removeDir: () => Promise<void>;

  before(async () => {
    const dir = await tempDir();
    removeDir = dir.remove;
    platform = await startTestPlatform({
      ...(await withBootstrap(
        { DATA_DIR: dir.path },
        { applications: [{ ...APP, name: "Headers", scopes: ["notifications"] }] },
      )),
      METRICS_PUBLIC: "true",
    });
  });

  after(async () => {
    await platform?.stop();
    await removeDir?.();
  });

  it("carries nosniff, once, on answers of every kind: JSON, errors, pages, documents, metrics", async () => {
    const basic = `Basic ${Buffer.from(`${APP.id}:${APP.secret}`).toString("base64")}`;
    const requests: [string, RequestInit?][] = [
      ["/healthz"],
      ["/readyz"],
      ["/metrics"],
      ["/openapi.json"],
      ["/docs"],
      ["/.well-known/oauth-authorization-server"],
      ["/no/such/route"],
      ["/apis/v2/me/profile"],
      ["/file/01890000-0000-7000-8000-000000000000"],
      ["/v1/notification", { method: "PUT", body: "{}", headers: { "content-type": "application/json" } }],
      ["/oauth2/authorize?client_id=nobody"],
      [
        "/oauth2/token",
        {
          method: "POST",
          headers: { authorization: basic, "content-type": "application/x-www-form-urlencoded" },
          body: "grant_type=client_credentials&scope=notifications",
        },
      ],
    ];
    const statuses = new Set<number>();
    for (const [path, init] of requests) {
      const response = await fetch(`${platform.url}${path}`, init);
      await response.arrayBuffer();
      statuses.add(response.status);
      assert.equal(response.headers.get("x-content-type-options"), "nosniff", `${path} (${response.status})`);
    }
    assert.deepEqual([...statuses].sort(), [200, 400, 401, 404], "successes and refusals alike");
  });
});
