import { randomBytes } from "node:crypto";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import { type AddressInfo, createServer as createNetServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type Page } from "playwright-core";
import sharp from "sharp";
import { loadConfig } from "../runtime/config.ts";
import { startAllInOne } from "./processes.ts";

/**
 * Pictures of the operator console for docs/operations.md: an embedded platform with sample data, each
 * page opened in headless Chromium (1280×800) and saved as docs/console/<page>.png.
 *
 *   node --import tsx bin/console-screenshots.ts [chromium path, default /usr/bin/chromium]
 */

const CHROMIUM = process.argv[2] ?? "/usr/bin/chromium";
const OUT = new URL("../docs/console/", import.meta.url);
const ADMIN_TOKEN = randomBytes(32).toString("base64url");

/** A seal's image: a red ring and its name, on a transparent ground. */
async function sealImage(text: string): Promise<string> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="160" height="160">
    <circle cx="80" cy="80" r="72" fill="none" stroke="#c8102e" stroke-width="8"/>
    <text x="80" y="90" font-family="sans-serif" font-size="22" fill="#c8102e" text-anchor="middle">${text}</text>
  </svg>`;
  const png = await sharp(Buffer.from(svg)).png().toBuffer();
  return `data:image/png;base64,${png.toString("base64")}`;
}

/** A campus app that takes every message but those for `offline`, which it answers 503. */
async function campusApp(): Promise<{ url: string; close(): void }> {
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const { account } = JSON.parse(Buffer.concat(chunks).toString() || "{}") as { account?: string };
      const down = account === "offline";
      response.writeHead(down ? 503 : 200, { "content-type": "application/json" });
      response.end(
        JSON.stringify(down ? { errno: 50300, error: "push service down" } : { errno: 0, id: "push-1" }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => server.close(),
  };
}

async function freePort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const app = await campusApp();
// The feed's provider: nothing listens there, so a run fails as a provider out of reach does.
const feedPort = await freePort();
const dataDir = await mkdtemp(join(tmpdir(), "console-screenshots-"));
const bootstrapFile = join(dataDir, "bootstrap.json");
await writeFile(
  bootstrapFile,
  JSON.stringify({
    tenants: [
      {
        domain: "example.edu",
        name: "Example University",
        workflow: { reminder: { channel: "app", text: "{process}: {step} waits for you" } },
      },
      { domain: "medical.example.edu", name: "Example Medical School" },
    ],
    applications: [
      {
        id: "course-portal",
        name: "Course portal",
        secret: randomBytes(32).toString("base64url"),
        redirectUris: ["https://portal.example.edu/callback"],
        scopes: ["profile", "basic", "signature"],
      },
      {
        id: "library",
        name: "Library",
        secret: randomBytes(32).toString("base64url"),
        scopes: ["send_app_notification", "notifications"],
        grants: ["client_credentials"],
      },
      {
        id: "timetable",
        name: "Timetable",
        type: "enterprise",
        tenant: "example.edu",
        scopes: ["essential"],
        disabled: true,
      },
    ],
    users: [
      {
        tenant: "example.edu",
        account: "dana",
        name: "Dana Scully",
        email: "dana@example.edu",
        password: "a private passphrase",
      },
      { tenant: "example.edu", account: "fox", name: "Fox Mulder", phone: "+1 555 0100" },
      { tenant: "example.edu", account: "walter", name: "Walter Skinner", email: "walter@example.edu" },
      { tenant: "example.edu", account: "offline", name: "Off Line" },
    ],
    seals: [
      {
        code: "registry",
        name: "Registry office",
        image: await sealImage("REGISTRY"),
        width: 120,
        height: 120,
      },
      {
        code: "finance",
        tenant: "example.edu",
        name: "Finance office",
        image: await sealImage("FINANCE"),
        width: 110,
        height: 110,
      },
    ],
    channels: [
      {
        name: "app",
        plugin: "app",
        config: { baseUrl: app.url, token: "campus-app-token" },
        permittedApplications: ["library"],
      },
    ],
    feeds: [
      {
        tenant: "example.edu",
        url: `http://127.0.0.1:${feedPort}/feed/`,
        intervalSeconds: 0,
        timeoutSeconds: 5,
      },
    ],
  }),
);

const port = await freePort();
const url = `http://127.0.0.1:${port}`;
const running = await startAllInOne(
  loadConfig({
    PORT: String(port),
    HOST: "127.0.0.1",
    PUBLIC_URL: url,
    LOG_LEVEL: "silent",
    DATA_DIR: dataDir,
    BOOTSTRAP_FILE: bootstrapFile,
    ADMIN_TOKEN,
    NOTIFY_RETRY_DELAYS_MS: "50",
  }),
);
const browser = await chromium.launch({
  executablePath: CHROMIUM,
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"],
});
try {
  await mkdir(OUT, { recursive: true });
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  const shoot = async (name: string) => {
    await page.screenshot({ path: new URL(`${name}.png`, OUT).pathname });
    console.log(`docs/console/${name}.png`);
  };
  const open = async (path: string) => {
    await page.goto(`${url}${path}`);
  };
  /** Polls a page until `ready` holds, reloading it. */
  const until = async (target: Page, ready: () => Promise<boolean>) => {
    for (let attempt = 0; attempt < 100 && !(await ready()); attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      await target.reload();
    }
  };

  await open("/console/sign-in");
  await shoot("sign-in");
  await page.fill("#token", ADMIN_TOKEN);
  await Promise.all([page.waitForURL(`${url}/console`), page.click("button[type=submit]")]);

  // A dead letter (the campus app down for the account) and a message sent, by test messages.
  for (const account of ["offline", "dana"]) {
    await open("/console/channels");
    await page.fill("#test-recipient", account);
    await page.click("button:has-text('Send')");
  }
  await until(page, async () => (await page.textContent("td.status")) === "sent");
  await shoot("notification");
  // A feed run, failing: nothing answers at its address.
  await open("/console/feeds?tenant=example.edu");
  await page.click("button:has-text('Run now')");
  await until(page, async () => (await page.locator("td.status-fail").count()) > 0);

  await open("/console");
  await until(page, async () => (await page.locator("main table").count()) > 0);
  await shoot("dashboard");
  for (const [name, path] of [
    ["tenants", "/console/tenants"],
    ["applications", "/console/applications"],
    ["application", "/console/applications/course-portal"],
    ["users", "/console/users?tenant=example.edu"],
    ["seals", "/console/seals"],
    ["channels", "/console/channels"],
    ["channel", "/console/channels/app"],
    ["feed", "/console/feeds?tenant=example.edu"],
    ["queues", "/console/queues"],
    ["dead-letters", "/console/queues/notify.app"],
    ["callbacks", "/console/callbacks"],
  ] as const) {
    await open(path);
    await shoot(name);
  }
  await open("/console/applications/library");
  await page.click("button:has-text('Give it a new secret')");
  await shoot("new-secret");
} finally {
  await browser.close();
  await running.stop();
  app.close();
  await rm(dataDir, { recursive: true, force: true });
}
