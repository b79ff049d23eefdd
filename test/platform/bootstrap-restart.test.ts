import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { sealPng } from "../support/pdf-fixtures.ts";
import { startTestPlatform, type TestPlatform, testModes, withBootstrap } from "../support/platform.ts";
import { after, before, describe, it } from "../support/skippable-suites.ts";

const ADMIN_TOKEN = "bootstrap-admin-token-0123456789abcdefghij";
const FILE_SECRET = "the-secret-the-file-gave-0123456789abcdef";
const ENV_SECRET = "the-secret-the-environment-holds-0123456789";

const tenant = { domain: "example.edu", name: "Example University" };
const portal = {
  id: "course-portal",
  secret: FILE_SECRET,
  name: "Course portal",
  type: "enterprise",
  tenant: "example.edu",
  scopes: ["basic"],
};
const seal = {
  code: "registrar",
  name: "Registrar",
  image: `data:image/png;base64,${sealPng(32).toString("base64")}`,
  width: 60,
  height: 60,
};

/** The token endpoint's status for a client_credentials request with this secret. */
async function tokenStatus(url: string, id: string, secret: string): Promise<number> {
  const response = await fetch(`${url}/oauth2/token`, {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      authorization: `Basic ${Buffer.from(`${id}:${secret}`).toString("base64")}`,
    },
    body: new URLSearchParams({ grant_type: "client_credentials" }),
  });
  await response.body?.cancel();
  return response.status;
}

function admin(url: string, method: string, path: string): Promise<Response> {
  return fetch(`${url}${path}`, { method, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
}

for (const mode of await testModes()) {
  describe(`bootstrap file across restarts (${mode.name})`, { skip: mode.skip }, () => {
    let platform: TestPlatform | undefined;
    let cleanup: () => Promise<void>;
    let env: Record<string, string>;

    async function restartWith(bootstrap: unknown) {
      await platform?.stop();
      platform = undefined;
      await writeFile(env.BOOTSTRAP_FILE!, JSON.stringify(bootstrap));
      platform = await startTestPlatform(env);
      return platform.url;
    }

    before(async () => {
      const prepared = await mode.prepare();
      cleanup = prepared.cleanup;
      env = { ...(await withBootstrap(prepared.env, {})), ADMIN_TOKEN };
    });

    after(async () => {
      await platform?.stop();
      await cleanup?.();
    });

    it("keeps a stored secret when the file leaves it out", async () => {
      let url = await restartWith({ tenants: [tenant], applications: [portal] });
      assert.equal(await tokenStatus(url, portal.id, FILE_SECRET), 200);

      const { secret: _, ...withoutSecret } = portal;
      url = await restartWith({ tenants: [tenant], applications: [{ ...withoutSecret, name: "Portal" }] });
      assert.equal(await tokenStatus(url, portal.id, FILE_SECRET), 200);
      assert.equal(await tokenStatus(url, portal.id, "a-wrong-secret-0123456789abcdefghijkl"), 401);
    });

    it("takes a secret from the environment variable the file names", async () => {
      const { secret: _, ...withoutSecret } = portal;
      const fromEnv = { ...withoutSecret, id: "library-kiosk", secretEnv: "LIBRARY_KIOSK_SECRET" };
      // The platform runs in this process, so it reads this process's environment.
      process.env.LIBRARY_KIOSK_SECRET = ENV_SECRET;
      try {
        const url = await restartWith({ tenants: [tenant], applications: [fromEnv] });
        assert.equal(await tokenStatus(url, fromEnv.id, ENV_SECRET), 200);
      } finally {
        delete process.env.LIBRARY_KIOSK_SECRET;
      }
    });

    it("leaves what operators changed alone at restart while the file's entry stays the same", async () => {
      const file = { tenants: [tenant], applications: [portal], seals: [seal] };
      let url = await restartWith(file);
      assert.equal(await tokenStatus(url, portal.id, FILE_SECRET), 200);

      const rotated = await admin(url, "POST", `/admin/applications/${portal.id}/secret`);
      assert.equal(rotated.status, 200);
      const { secret: newSecret } = (await rotated.json()) as { secret: string };
      assert.equal((await admin(url, "DELETE", `/admin/seals/${seal.code}`)).status, 200);

      url = await restartWith(file);
      assert.equal(await tokenStatus(url, portal.id, newSecret), 200, "the rotated secret survives");
      assert.equal(await tokenStatus(url, portal.id, FILE_SECRET), 401);
      const again = await admin(url, "DELETE", `/admin/seals/${seal.code}`);
      assert.equal(again.status, 404, "the withdrawn seal stays withdrawn");
      await again.body?.cancel();

      // An entry the file changes is applied again, whole.
      url = await restartWith({ ...file, applications: [{ ...portal, name: "Course portal 2" }] });
      assert.equal(await tokenStatus(url, portal.id, FILE_SECRET), 200);
      assert.equal(await tokenStatus(url, portal.id, newSecret), 401);
    });

    it("applies every entry when an operator applies the file explicitly", async () => {
      const file = { tenants: [tenant], applications: [portal], seals: [seal] };
      const url = await restartWith(file);
      const apply = () =>
        fetch(`${url}/admin/bootstrap`, {
          method: "PUT",
          headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
          body: JSON.stringify(file),
        });
      assert.equal((await apply()).status, 200);
      assert.equal((await admin(url, "DELETE", `/admin/seals/${seal.code}`)).status, 200);
      assert.equal((await apply()).status, 200);
      assert.equal((await admin(url, "DELETE", `/admin/seals/${seal.code}`)).status, 200, "the seal is back");
    });
  });
}
