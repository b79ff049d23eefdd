import assert from "node:assert/strict";
import { appChannelBootstrap } from "../support/app-channel.ts";
import { startTestPlatform, type TestPlatform, testModes, withBootstrap } from "../support/platform.ts";
import { RecordingServer } from "../support/recording-server.ts";
import { after, before, describe, it } from "../support/skippable-suites.ts";
import { issueToken } from "../support/tokens.ts";
import { waitFor } from "../support/wait.ts";

const APPLICATION = { id: "retry-app", secret: "retry-app-secret-0123456789abcdefghijkl", name: "Retry" };
/** Long enough that the first retry is still ahead while the test reads the status. */
const FIRST_RETRY_DELAY_MS = 60_000;

interface TaskView {
  sendingStatus: string;
  detail?: string;
  nextAttemptTime?: number;
}

for (const mode of await testModes()) {
  describe(`a delivery waiting for its next attempt (${mode.name})`, { skip: mode.skip }, () => {
    let platform: TestPlatform;
    let campusApp: RecordingServer;
    let cleanup: (() => Promise<void>) | undefined;

    before(async () => {
      campusApp = await RecordingServer.start(() => ({
        status: 503,
        body: { errno: 50300, error: "push service busy" },
      }));
      const prepared = await mode.prepare();
      cleanup = prepared.cleanup;
      const env = await withBootstrap(prepared.env, appChannelBootstrap(APPLICATION, campusApp.url));
      platform = await startTestPlatform({
        ...env,
        NOTIFY_RETRY_DELAYS_MS: `${FIRST_RETRY_DELAY_MS},${FIRST_RETRY_DELAY_MS}`,
      });
    });

    after(async () => {
      await platform?.stop();
      await campusApp?.close();
      await cleanup?.();
    });

    it("shows the last attempt's error and when the next attempt is due", async () => {
      const token = await issueToken(platform.url, APPLICATION, {
        grant_type: "client_credentials",
        scope: "send_app_notification notifications",
      });
      const sent = await fetch(`${platform.url}/v1/notification?access_token=${token}`, {
        method: "PUT",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ channels: ["app"], accounts: ["alice"], name: "Fees due Friday" }),
      });
      const id = ((await sent.json()) as { entities: { id: string }[] }).entities[0]!.id;
      const attemptedBy = Date.now();
      let task: TaskView | undefined;
      await waitFor(
        async () => {
          const answer = await fetch(`${platform.url}/notification/status?id=${id}&access_token=${token}`);
          task = ((await answer.json()) as { entities: { tasks: TaskView[] }[] }).entities[0]!.tasks[0];
          return task?.sendingStatus === "retrying";
        },
        15_000,
        "the first attempt to fail",
      );
      assert.match(task!.detail ?? "", /503.*push service busy/);
      const due = task!.nextAttemptTime!;
      assert.ok(
        due > attemptedBy + FIRST_RETRY_DELAY_MS - 1_000 && due < Date.now() + FIRST_RETRY_DELAY_MS + 1_000,
        `the next attempt is due about ${FIRST_RETRY_DELAY_MS} ms after the first (due ${due - Date.now()} ms from now)`,
      );
    });
  });
}
