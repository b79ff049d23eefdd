import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import * as oauth from "oauth4webapi";
import { chromium } from "playwright-core";
import { AuthorizationPages } from "../support/authorization-pages.ts";
import { startTestPlatform, type TestPlatform, tempDir } from "../support/platform.ts";
import { CHROMIUM, CHROMIUM_PATH, missingSystemPackages } from "../support/system-requirements.ts";

const SECRET = "interop-client-secret-0123456789abcdefghij";
const PASSWORD = "a long and private passphrase";

/** A stand-in for the client application's callback page, recording the Referer of each visit. */
async function callbackServer(): Promise<{ url: string; server: Server; referers: (string | undefined)[] }> {
  const referers: (string | undefined)[] = [];
  const server = createServer((request, response) => {
    // The page's own requests (its icon) name the page; only the arrival is the client's to judge.
    if (request.url?.startsWith("/callback")) referers.push(request.headers.referer);
    response.writeHead(200, { "content-type": "text/html" });
    response.end("<!doctype html><title>client callback</title><p>back at the client</p>");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`, server, referers };
}

describe("OAuth2 with real clients", () => {
  let platform: TestPlatform;
  let callback: Awaited<ReturnType<typeof callbackServer>>;
  let removeDir: () => Promise<void>;

  before(async () => {
    callback = await callbackServer();
    const dir = await tempDir();
    removeDir = dir.remove;
    const file = join(dir.path, "bootstrap.json");
    await writeFile(
      file,
      JSON.stringify({
        tenants: [{ domain: "example.edu", name: "Example University" }],
        applications: [
          {
            id: "interop-app",
            secret: SECRET,
            name: "Interop client",
            redirectUris: [callback.url],
            scopes: ["profile", "basic", "signature"],
          },
        ],
        users: [{ tenant: "example.edu", account: "dana", name: "Dana Scully", password: PASSWORD }],
      }),
    );
    platform = await startTestPlatform({ DATA_DIR: dir.path, BOOTSTRAP_FILE: file });
  });

  after(async () => {
    await platform?.stop();
    callback?.server.close();
    await removeDir?.();
  });

  it("an unmodified oauth4webapi client discovers the server, gets, uses and refreshes tokens", async () => {
    const insecure = { [oauth.allowInsecureRequests]: true };
    const issuer = new URL(platform.url);
    const as = await oauth.processDiscoveryResponse(
      issuer,
      await oauth.discoveryRequest(issuer, { algorithm: "oauth2", ...insecure }),
    );
    const client: oauth.Client = { client_id: "interop-app" };
    const auth = oauth.ClientSecretBasic(SECRET);

    const machine = await oauth.processClientCredentialsResponse(
      as,
      client,
      await oauth.clientCredentialsGrantRequest(as, client, auth, { scope: "signature" }, insecure),
    );
    assert.equal(machine.token_type, "bearer");
    assert.ok(machine.access_token);

    // The authorization code flow, with the login and consent forms driven over plain HTTP.
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const pages = await AuthorizationPages.open(platform.url, {
      response_type: "code",
      client_id: client.client_id,
      redirect_uri: callback.url,
      scope: "profile",
      state,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: "S256",
    });
    await pages.signIn("dana", PASSWORD);
    const landing = await pages.decide("allow");
    const params = oauth.validateAuthResponse(as, client, landing, state);
    const user = await oauth.processAuthorizationCodeResponse(
      as,
      client,
      await oauth.authorizationCodeGrantRequest(as, client, auth, params, callback.url, verifier, insecure),
    );
    assert.ok(user.refresh_token);
    const profile = await fetch(`${platform.url}/apis/v2/me/profile`, {
      headers: { authorization: `Bearer ${user.access_token}` },
    });
    assert.equal(
      ((await profile.json()) as { entities: { account: string }[] }).entities[0]!.account,
      "dana",
    );

    const refreshed = await oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, auth, user.refresh_token!, insecure),
    );
    assert.ok(refreshed.access_token);
    assert.notEqual(refreshed.refresh_token, user.refresh_token);
  });

  it("a person signs in and consents in a real browser, landing on the redirect URI with a code", {
    skip: missingSystemPackages(CHROMIUM),
  }, async () => {
    const browser = await chromium.launch({
      executablePath: CHROMIUM_PATH,
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    });
    try {
      const page = await browser.newPage();
      const state = "browser-state-1";
      const challenge = await oauth.calculatePKCECodeChallenge(oauth.generateRandomCodeVerifier());
      const login = await page.goto(
        `${platform.url}/oauth2/authorize?${new URLSearchParams({
          response_type: "code",
          client_id: "interop-app",
          redirect_uri: callback.url,
          scope: "profile basic",
          state,
          code_challenge: challenge,
          code_challenge_method: "S256",
        })}`,
      );
      assert.equal(login?.headers()["referrer-policy"], "no-referrer", "the login page");
      await page.fill("#username", "dana");
      await page.fill("#password", "not the password");
      await page.click("button[type=submit]");
      assert.equal(await page.textContent("[role=alert]"), "Wrong account or password.");

      await page.fill("#username", "dana");
      await page.fill("#password", PASSWORD);
      const [consent] = await Promise.all([
        page.waitForResponse((response) => response.url().endsWith("/oauth2/authorize/login")),
        page.click("button[type=submit]"),
      ]);
      assert.equal(consent.headers()["referrer-policy"], "no-referrer", "the consent page");
      assert.match((await page.textContent("main")) ?? "", /read user identifier/);
      await Promise.all([page.waitForURL(`${callback.url}?**`), page.click("button[value=allow]")]);
      const landed = new URL(page.url());
      assert.equal(landed.searchParams.get("state"), state);
      assert.match(landed.searchParams.get("code") ?? "", /^[\w-]{43}$/);
      assert.equal(
        callback.referers.at(-1),
        undefined,
        "the client learns nothing of the pages it came from",
      );
    } finally {
      await browser.close();
    }
  });
});
