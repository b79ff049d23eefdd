import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { adminCli } from "../support/admin-cli.ts";
import { startTestPlatform, type TestPlatform, tempDir } from "../support/platform.ts";
import { WorkflowClient } from "../support/workflow-client.ts";
import { sysToken } from "../support/workflow-fixture.ts";

/**
 * The operators' CLI deploys workflows from a bootstrap file (`npm run admin -- apply`): a new
 * version is added beside the ones before, a file with a broken definition is refused naming the
 * node and changes nothing, and the platform started on the data serves what was applied.
 */

const SECRET = "workflow-cli-secret-0123456789abcdefghijk";

/** The applicant's form, then `extraStep` when given, then the end. */
function memo(extraStep?: string) {
  const steps = extraStep ? ["apply", extraStep] : ["apply"];
  return {
    schema: { fields: [{ name: "note", type: "string" }] },
    graph: {
      nodes: [
        { kind: "start", code: "apply" },
        ...(extraStep ? [{ kind: "task", code: extraStep, assignees: [{ initiator: true }] }] : []),
        { kind: "end", code: "done" },
      ],
      edges: steps.map((from, i) => ({ from, to: steps[i + 1] ?? "done" })),
    },
  };
}

function bootstrap(versions: unknown[]) {
  return {
    tenants: [{ domain: "example.edu", name: "Example University" }],
    applications: [
      {
        id: "portal",
        secret: SECRET,
        name: "Portal",
        type: "enterprise",
        tenant: "example.edu",
        scopes: ["sys_app"],
      },
    ],
    workflows: [{ tenant: "example.edu", code: "memo", name: "Memo", versions }],
  };
}

describe("workflows deployed by the admin CLI", () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let platform: TestPlatform | undefined;

  before(async () => {
    dir = await tempDir();
  });
  after(async () => {
    await platform?.stop();
    await dir.remove();
  });

  /** Writes the bootstrap file and applies it with the CLI. */
  async function apply(name: string, content: unknown) {
    const file = join(dir.path, name);
    await writeFile(file, JSON.stringify(content));
    return adminCli(dir.path, "apply", file);
  }

  it("adds versions, refuses a broken definition naming its node, and the platform serves them", async () => {
    const first = { name: "first", definition: memo(), online: true };
    const applied = await apply("first.json", bootstrap([first]));
    assert.equal(applied.code, 0, applied.err);
    assert.match(applied.out, /^applied /);

    const second = { name: "second", definition: memo("check"), online: true };
    const again = await apply("second.json", bootstrap([first, second]));
    assert.equal(again.code, 0, again.err);

    const broken = memo("check");
    broken.graph.edges.push({ from: "check", to: "nowhere" });
    const refused = await apply(
      "broken.json",
      bootstrap([first, second, { name: "third", definition: broken }]),
    );
    assert.notEqual(refused.code, 0);
    assert.match(refused.err, /check/, refused.err);
    assert.match(refused.err, /nowhere/, refused.err);

    platform = await startTestPlatform({ DATA_DIR: dir.path });
    const api = new WorkflowClient(() => platform!.url, "");
    const sys = await sysToken(platform.url, "portal", SECRET, "sys_app");
    type Version = { name: string; current: boolean; schema: unknown };
    const app = await api.ok<{ versions: Version[] }>("GET", "/app/memo", sys, { includeVersions: "true" });
    assert.deepEqual(
      app.entities[0]!.versions.map((version) => [version.name, version.current]).sort(),
      [
        ["first", false],
        ["second", true],
      ],
      "the two versions applied, the second on line; nothing of the broken file",
    );
  });
});
