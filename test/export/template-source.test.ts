import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import { type AddressInfo, createServer as createTcpServer, type Server as TcpServer } from "node:net";
import { after, before, describe, it } from "node:test";
import { ErrorCode, PlatformError } from "../../contracts/errors.ts";
import { type ResolvedAddress, TemplateSource } from "../../exports/template-source.ts";
import type { Queryable } from "../../runtime/database.ts";
import { isInternalAddress } from "../../runtime/internal-address.ts";
import type { Logger } from "../../runtime/logger.ts";
import type { FileStorage } from "../../runtime/storage/file-storage.ts";
import { HostAllowlist, parseHostEntry } from "../../runtime/template-hosts.ts";

const TEMPLATE = Buffer.from("the template's bytes");

/** Listens on `host`, port 0, until closed. */
async function listening<T extends Server | TcpServer>(server: T, host = "127.0.0.1"): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return (server.address() as AddressInfo).port;
}

function close(server: Server | TcpServer | undefined): Promise<void> {
  return new Promise((resolve) => (server?.listening ? server.close(() => resolve()) : resolve()));
}

/** What the source logs: the reasons the caller is not told. */
function recordingLog(): { log: Logger; reasons: string[] } {
  const reasons: string[] = [];
  const log = { warn: (fields: { reason: string }) => reasons.push(fields.reason) } as unknown as Logger;
  return { log, reasons };
}

function source(
  allowedHosts: string[],
  options: { resolve?: (hostname: string) => Promise<ResolvedAddress[]>; maxBytes?: number } = {},
) {
  const { log, reasons } = recordingLog();
  const templates = new TemplateSource({
    sql: undefined as unknown as Queryable,
    storage: undefined as unknown as FileStorage,
    publicUrls: ["http://platform.invalid"],
    allowedHosts,
    maxBytes: options.maxBytes ?? 1024,
    timeoutMs: 5_000,
    log,
    ...(options.resolve ? { resolve: options.resolve } : {}),
  });
  return { templates, reasons };
}

/** The refusal `fetch` ends in: its code and message. */
async function refusal(templates: TemplateSource, uri: string): Promise<{ code: string; message: string }> {
  try {
    await templates.fetch(uri);
  } catch (error) {
    assert.ok(error instanceof PlatformError, String(error));
    return { code: error.code, message: error.message };
  }
  assert.fail(`${uri} was fetched`);
}

describe("export template hosts", () => {
  it("reads entries of names, subdomains and addresses, each with a port or on the scheme's default", () => {
    for (const text of ["docs.example.edu", "*.example.edu:8443", "10.0.0.5:8080", "[fd00::5]", "[::1]:80"])
      assert.ok(parseHostEntry(text), text);
    for (const text of [
      "",
      "*.10.0.0.5",
      "docs.example.edu:0",
      "docs.example.edu:65536",
      "a b",
      "*.",
      "http://x",
    ])
      assert.equal(parseHostEntry(text), undefined, text);

    const allowlist = new HostAllowlist([
      "docs.example.edu",
      "*.example.org:8443",
      "10.0.0.5:8080",
      "[fd00::5]",
    ]);
    const allows = (uri: string) => allowlist.allows(new URL(uri));
    assert.ok(allows("https://docs.example.edu/t.docx"), "a name on https's default port");
    assert.ok(allows("http://docs.example.edu:80/t.docx"), "a name on http's default port, written out");
    assert.ok(!allows("http://docs.example.edu:8080/t.docx"), "a name on another port");
    assert.ok(!allows("http://docs.example.edu:22/"), "a name on ssh's port");
    assert.ok(allows("https://a.b.example.org:8443/t.docx"), "a subdomain on its listed port");
    assert.ok(!allows("https://example.org:8443/t.docx"), "the domain of a `*.` entry itself");
    assert.ok(!allows("https://a.example.org/t.docx"), "a subdomain on another port");
    assert.ok(allows("http://10.0.0.5:8080/"), "an address on its listed port");
    assert.ok(allows("http://[::ffff:10.0.0.5]:8080/"), "the same address, IPv4-mapped");
    assert.ok(!allows("http://10.0.0.5/"), "an address on another port");
    assert.ok(allows("http://[fd00:0::5]/"), "an IPv6 address written another way");
    assert.ok(!allows("http://evil.docs.example.edu/"), "a subdomain of an exact name");
  });

  it("tells internal addresses from public ones, in IPv4 and IPv6, mapped and embedded ones too", () => {
    const internal = [
      "127.0.0.1",
      "127.255.0.9",
      "0.0.0.0",
      "10.1.2.3",
      "100.64.0.1",
      "169.254.169.254",
      "172.16.0.1",
      "172.31.255.255",
      "192.168.1.1",
      "198.18.0.1",
      "224.0.0.1",
      "255.255.255.255",
      "::",
      "::1",
      "[::1]",
      "::ffff:127.0.0.1",
      "::ffff:7f00:1",
      "::ffff:169.254.169.254",
      "::127.0.0.1",
      "fe80::1",
      "fe80::1%eth0",
      "fd00:ec2::254",
      "fc00::1",
      "ff02::1",
      "64:ff9b::a9fe:a9fe",
      "64:ff9b::10.0.0.1",
      "2002:7f00:1::1",
      "2002:c0a8:101::",
      "2001:db8::1",
      "2001::1",
      "not an address",
    ];
    for (const address of internal) assert.ok(isInternalAddress(address), address);
    const external = [
      "93.184.216.34",
      "8.8.8.8",
      "172.32.0.1",
      "2606:4700::1111",
      "64:ff9b::808:808",
      "2002:808:808::1",
    ];
    for (const address of external) assert.ok(!isInternalAddress(address), address);
  });
});

describe("export templates fetched by URI", () => {
  let stand: Server;
  let standPort = 0;
  const requests: { host: string | undefined; url: string | undefined }[] = [];
  let trap: TcpServer;
  let trapped = 0;
  let hangUp: TcpServer;
  let hangUpPort = 0;
  let closedPort = 0;

  before(async () => {
    // The allowed stand-in: the template, a redirect, a missing file and one too large.
    stand = createServer((request, response) => {
      requests.push({ host: request.headers.host, url: request.url });
      if (request.url === "/moved") response.writeHead(302, { location: "/t.docx" }).end();
      else if (request.url === "/missing") response.writeHead(404).end();
      else if (request.url === "/large") response.end(Buffer.alloc(4096));
      else response.end(TEMPLATE);
    });
    standPort = await listening(stand);
    // Another loopback address on the same port, where a second resolution of a name would lead.
    trap = createTcpServer((socket) => {
      trapped++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => trap.listen(standPort, "127.0.0.2", resolve));
    // An open port whose listener hangs up at once, and a port nothing listens on.
    hangUp = createTcpServer((socket) => socket.destroy());
    hangUpPort = await listening(hangUp);
    const closed = createTcpServer();
    closedPort = await listening(closed);
    await close(closed);
  });

  after(async () => {
    await Promise.all([close(stand), close(trap), close(hangUp)]);
  });

  it("fetches from an address listed itself, on its port", async () => {
    const { templates } = source([`127.0.0.1:${standPort}`]);
    assert.deepEqual(await templates.fetch(`http://127.0.0.1:${standPort}/t.docx`), TEMPLATE);
    const otherPort = await refusal(templates, `http://127.0.0.1:${closedPort}/t.docx`);
    assert.equal(otherPort.code, ErrorCode.PermissionDenied);
    assert.match(otherPort.message, /the host 127\.0\.0\.1:\d+ is not among those/);
  });

  it("refuses a name that resolves to the loopback unless the loopback address is listed itself", async () => {
    const before = requests.length;
    const { templates, reasons } = source([`localhost:${standPort}`]);
    const refused = await refusal(templates, `http://localhost:${standPort}/t.docx`);
    assert.deepEqual(refused, {
      code: ErrorCode.Unprocessable,
      message: `template: could not be fetched from localhost:${standPort}`,
    });
    assert.equal(requests.length, before, "the loopback never heard of it");
    assert.match(reasons.at(-1)!, /resolves to 127\.0\.0\.1, an internal address not listed itself/);

    const listed = source([`localhost:${standPort}`, `127.0.0.1:${standPort}`]);
    assert.deepEqual(await listed.templates.fetch(`http://localhost:${standPort}/t.docx`), TEMPLATE);
    assert.equal(requests.at(-1)!.host, `localhost:${standPort}`, "the request names the host asked for");
  });

  it("refuses a name with any internal address, IPv6, mapped and embedded ones too, connecting nowhere", async () => {
    const answers = [
      ["93.184.216.34", "10.0.0.1"],
      ["::1"],
      ["::ffff:127.0.0.1"],
      ["fe80::1"],
      ["fd00::1"],
      ["64:ff9b::7f00:1"],
      ["2002:7f00:1::"],
      ["169.254.169.254"],
    ];
    for (const addresses of answers) {
      const { templates, reasons } = source(["*.example.edu:8080"], {
        resolve: async () => addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 })),
      });
      const refused = await refusal(templates, "http://docs.example.edu:8080/t.docx");
      assert.equal(
        refused.message,
        "template: could not be fetched from docs.example.edu:8080",
        String(addresses),
      );
      assert.match(reasons.at(-1)!, /an internal address not listed itself/, String(addresses));
    }
  });

  it("connects to the address it checked, whatever the name resolves to afterwards", async () => {
    let lookups = 0;
    const rebinding = async (): Promise<ResolvedAddress[]> => {
      lookups++;
      return [{ address: lookups === 1 ? "127.0.0.1" : "127.0.0.2", family: 4 }];
    };
    const { templates } = source([`rebind.example.edu:${standPort}`, `127.0.0.1:${standPort}`], {
      resolve: rebinding,
    });
    const before = requests.length;
    assert.deepEqual(await templates.fetch(`http://rebind.example.edu:${standPort}/t.docx`), TEMPLATE);
    assert.equal(lookups, 1, "the name is resolved once");
    assert.equal(requests.length, before + 1);
    assert.equal(requests.at(-1)!.host, `rebind.example.edu:${standPort}`);
    assert.equal(trapped, 0, "nothing reached the address a second resolution gives");
  });

  it("answers every failure of a fetch alike, open port or closed, and logs what it was", async () => {
    const hosts = [`127.0.0.1:${standPort}`, `127.0.0.1:${hangUpPort}`, `127.0.0.1:${closedPort}`];
    const { templates, reasons } = source([...hosts, "nowhere.invalid"], { maxBytes: 1024 });
    const failures = [
      `http://127.0.0.1:${hangUpPort}/t.docx`,
      `http://127.0.0.1:${closedPort}/t.docx`,
      `http://127.0.0.1:${standPort}/moved`,
      `http://127.0.0.1:${standPort}/missing`,
      `http://127.0.0.1:${standPort}/large`,
      "http://nowhere.invalid/t.docx",
    ];
    const answers = [];
    for (const uri of failures) {
      const { code, message } = await refusal(templates, uri);
      answers.push({ code, message: message.replace(new URL(uri).host, "HOST") });
    }
    assert.deepEqual(
      answers,
      failures.map(() => ({
        code: ErrorCode.Unprocessable,
        message: "template: could not be fetched from HOST",
      })),
    );
    const logged = reasons.slice(-failures.length);
    assert.match(logged[0]!, /other side closed|socket|ECONNRESET/i);
    assert.match(logged[1]!, /ECONNREFUSED/);
    assert.match(logged[2]!, /answered 302/);
    assert.match(logged[3]!, /answered 404/);
    assert.match(logged[4]!, /larger than EXPORT_TEMPLATE_MAX_BYTES/);
    assert.match(logged[5]!, /does not resolve/);
  });
});
