import assert from "node:assert/strict";
import { copyFile, cp, stat, symlink } from "node:fs/promises";
import { basename, join } from "node:path";
import { dockerfile } from "../support/dockerfile.ts";
import { PROJECT_ROOT as ROOT } from "../support/imports.ts";
import { tempDir } from "../support/platform.ts";
import { distributedSetup, PlatformProcess } from "../support/platform-processes.ts";
import { realServices } from "../support/services.ts";
import { describe, it } from "../support/skippable-suites.ts";

const ADMIN_TOKEN = "image-files-admin-token-0123456789abcdef";
const services = await realServices();

/**
 * The files the image holds: each `COPY` of the Dockerfile done into `folder`, which stands for
 * the image's working directory. The packages are the checkout's, as `npm ci` installs them there.
 */
async function assembleImage(folder: string): Promise<void> {
  const { copies } = await dockerfile();
  assert.ok(copies.length > 0, "the Dockerfile copies nothing");
  for (const { sources, destination: named } of copies) {
    const destination = join(folder, named);
    for (const source of sources) {
      // As Docker copies: a folder's contents into the destination, a file into it when it names a folder.
      const intoFolder = destination.endsWith("/") && (await stat(join(ROOT, source))).isFile();
      await cp(join(ROOT, source), intoFolder ? join(destination, basename(source)) : destination, {
        recursive: true,
      });
    }
  }
  await symlink(join(ROOT, "node_modules"), join(folder, "node_modules"), "dir");
}

describe("the image's files", { skip: services ? false : "Postgres or RabbitMQ unreachable" }, () => {
  it("run a gateway that deploys a workflow, and a worker, with only what the Dockerfile copies", async () => {
    const image = await tempDir("op-image-");
    const setup = await distributedSetup({}, { ADMIN_TOKEN });
    const started: PlatformProcess[] = [];
    try {
      await assembleImage(image.path);
      // As compose.yaml mounts it: the example bootstrap file beside the image's files.
      const bootstrapFile = join(image.path, "bootstrap.json");
      await copyFile(join(ROOT, "bootstrap.example.json"), bootstrapFile);
      const env = { ...setup.env, BOOTSTRAP_FILE: bootstrapFile };
      const gateway = await PlatformProcess.gateway(env, image.path);
      started.push(gateway);
      started.push(await PlatformProcess.worker(env, ["notify.email"], image.path));

      const deployed = await fetch(`${gateway.url}/admin/workflows/example.edu/leave/versions`, {
        method: "PUT",
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
        body: JSON.stringify({
          app: { name: "Leave" },
          online: true,
          definition: {
            schema: { fields: [{ name: "days", type: "number" }] },
            graph: {
              nodes: [
                { kind: "start", code: "apply" },
                { kind: "task", code: "approve", assignees: [{ initiator: true }] },
                { kind: "end", code: "done" },
              ],
              edges: [
                { from: "apply", to: "approve" },
                { from: "approve", to: "done" },
              ],
            },
          },
        }),
      });
      assert.equal(deployed.status, 200, await deployed.clone().text());
      assert.equal(((await deployed.json()) as { created: boolean }).created, true);
      const documents = await fetch(`${gateway.url}/openapi.json`);
      assert.equal(documents.status, 200);
    } finally {
      await Promise.all(started.map((running) => running.stop()));
      await setup.cleanup();
      await image.remove();
    }
  });
});
