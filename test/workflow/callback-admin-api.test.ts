import assert from "node:assert/strict";
import {
  SIGNATURE_HEADER,
  TIMESTAMP_HEADER,
  verifyCallback,
} from "../../workflow/messenger/callback-signature.ts";
import { CallbackReceiver } from "../support/callback-receiver.ts";
import { hooksWorkflow, startHooksProcess } from "../support/callback-relay.ts";
import { startTestPlatform, type TestPlatform, testModes, withBootstrap } from "../support/platform.ts";
import { after, before, describe, it } from "../support/skippable-suites.ts";
import { waitFor } from "../support/wait.ts";

const ADMIN_TOKEN = "callback-admin-token-0123456789abcdefghij";

interface Delivery {
  id: string;
  event: string;
  tenant: string;
  app: string;
  type: string;
  status: string;
  attempts: number;
  replays: number;
  lastError: string | null;
}

for (const mode of await testModes()) {
  describe(`messenger callbacks' admin API (${mode.name})`, { skip: mode.skip }, () => {
    let platform: TestPlatform | undefined;
    let receiver: CallbackReceiver | undefined;
    let cleanup: (() => Promise<void>) | undefined;

    before(async () => {
      receiver = await CallbackReceiver.start(() => 500);
      const prepared = await mode.prepare();
      cleanup = prepared.cleanup;
      const env = await withBootstrap(prepared.env, {
        tenants: [
          { domain: "a.edu", name: "A University" },
          { domain: "b.edu", name: "B College" },
        ],
        users: [{ tenant: "a.edu", account: "alice", name: "Alice" }],
        workflows: [hooksWorkflow("a.edu", `${receiver.url}/hooks`)],
      });
      platform = await startTestPlatform({
        ...env,
        ADMIN_TOKEN,
        CALLBACK_ALLOWED_HOSTS: `127.0.0.1:${receiver.port}`,
        CALLBACK_RETRY_DELAYS_MS: "20,20",
        CALLBACK_POLL_INTERVAL_MS: "20",
        CALLBACK_TIMEOUT_MS: "5000",
      });
    });

    after(async () => {
      await receiver?.close();
      await platform?.stop();
      await cleanup?.();
    });

    const admin = async (method: string, path: string, token = ADMIN_TOKEN) => {
      const response = await fetch(`${platform!.url}/admin/workflows${path}`, {
        method,
        headers: { authorization: `Bearer ${token}` },
      });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };

    const startHooks = () => startHooksProcess(platform!.running.platform.db.sql, "alice", "hooks");

    it("lists dead callbacks, shows their posts, replays them, and signs with the secret a rotation shows", async () => {
      const rotated = await admin("POST", "/a.edu/hooks/callback-secret");
      assert.equal(rotated.status, 200);
      const secret = rotated.body.secret as string;
      assert.match(secret, /^[A-Za-z0-9_-]{43}$/);
      assert.equal((await admin("POST", "/a.edu/nothing/callback-secret")).status, 404);

      await startHooks();
      const dead = async () => (await admin("GET", "/callbacks/dead?tenant=a.edu&app=hooks")).body;
      await waitFor(async () => ((await dead()).items as unknown[]).length === 1, 10_000, "a dead callback");
      const [listed] = (await dead()).items as Delivery[];
      assert.deepEqual(
        [listed!.tenant, listed!.app, listed!.type, listed!.status, listed!.attempts, listed!.lastError],
        ["a.edu", "hooks", "started", "dead", 3, "answered 500"],
      );
      assert.equal(receiver!.received.length, 3, "posted once and retried twice");
      assert.deepEqual(
        ((await admin("GET", "/callbacks/dead?tenant=b.edu")).body.items as unknown[]).length,
        0,
      );
      assert.equal((await admin("GET", "/callbacks/dead?app=hooks")).status, 400, "an app needs its tenant");
      assert.equal((await admin("GET", "/callbacks/dead?limit=100000")).status, 400, "pages are bounded");
      assert.equal(
        (await admin("GET", "/callbacks/dead", "a-wrong-token-0123456789abcdefghijkl")).status,
        401,
      );

      const shown = await admin("GET", `/callbacks/deliveries/${listed!.id}`);
      assert.equal(shown.status, 200);
      const attempts = shown.body.attempts as { attempt: number; httpStatus: number }[];
      assert.deepEqual(
        attempts.map((attempt) => [attempt.attempt, attempt.httpStatus]),
        [
          [3, 500],
          [2, 500],
          [1, 500],
        ],
      );
      assert.equal((await admin("GET", "/callbacks/deliveries/999999")).status, 404);
      assert.equal((await admin("GET", "/callbacks/deliveries/one")).status, 400);

      receiver!.reply = () => 200;
      const replayed = await admin("POST", `/callbacks/deliveries/${listed!.id}/replay`);
      assert.deepEqual([replayed.status, replayed.body], [200, { replayed: 1 }]);
      await waitFor(() => receiver!.accepted().length === 1, 10_000, "the replayed callback");
      const [received] = receiver!.accepted();
      const headers = {
        timestamp: received!.headers[TIMESTAMP_HEADER.toLowerCase()] as string,
        signature: received!.headers[SIGNATURE_HEADER.toLowerCase()] as string,
      };
      assert.ok(
        verifyCallback(secret, headers, received!.body, new Date()),
        "signed with the rotated secret",
      );
      assert.equal(JSON.parse(received!.body).id, listed!.event);

      await waitFor(
        async () =>
          ((await admin("GET", `/callbacks/deliveries/${listed!.id}`)).body.delivery as Delivery).status ===
          "delivered",
        5000,
        "the delivery recorded as delivered",
      );
      const after = (await admin("GET", `/callbacks/deliveries/${listed!.id}`)).body.delivery as Delivery;
      assert.deepEqual([after.attempts, after.replays], [1, 1]);
      assert.equal(
        (await admin("POST", `/callbacks/deliveries/${listed!.id}/replay`)).status,
        409,
        "not dead",
      );
      assert.equal((await admin("POST", "/callbacks/deliveries/999999/replay")).status, 404);
    });

    it("replays every dead callback of an app at once", async () => {
      receiver!.reply = () => 500;
      await startHooks();
      await startHooks();
      const dead = async () =>
        (await admin("GET", "/callbacks/dead?tenant=a.edu&app=hooks")).body.items as Delivery[];
      await waitFor(async () => (await dead()).length === 2, 10_000, "two dead callbacks");
      const before = receiver!.accepted().length;
      receiver!.reply = () => 200;
      const replayed = await admin("POST", "/a.edu/hooks/callbacks/replay");
      assert.deepEqual([replayed.status, replayed.body], [200, { replayed: 2 }]);
      await waitFor(() => receiver!.accepted().length === before + 2, 10_000, "both replayed");
      assert.equal((await admin("POST", "/a.edu/nothing/callbacks/replay")).status, 404);
    });
  });
}
