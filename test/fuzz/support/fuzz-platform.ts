import { SCOPES } from "../../../contracts/scopes.ts";
import { createGateway } from "../../../gateway/app.ts";
import { createGatewayServices } from "../../../gateway/gateway-services.ts";
import { AuthorizationPages } from "../../support/authorization-pages.ts";
import { sealPng } from "../../support/pdf-fixtures.ts";
import { startTestPlatform, type TestPlatform, tempDir, withBootstrap } from "../../support/platform.ts";
import { RecordingServer } from "../../support/recording-server.ts";
import { issueToken } from "../../support/tokens.ts";

export const SECRET = "fuzz-application-secret-0123456789abcdef";
const PASSWORD = "fuzzing password 1";
export const ADMIN_TOKEN = "fuzz-admin-token-0123456789abcdefghijklmno";
export const PORTAL_REDIRECT = "https://portal.fuzz.edu/callback";
export const TENANT = "fuzz.edu";
export const SEAL_CODE = "FUZZ-SEAL";
/** Small, so oversized bodies cost little to send. */
export const BODY_LIMIT_BYTES = 65_536;
export const UPLOAD_LIMIT_BYTES = 200_000;

/** Tokens a client may hold: each kind the routes ask for, every scope its grant may carry. */
export interface FuzzTokens {
  /** Client credentials of an enterprise application: every sys scope. */
  sys: string;
  /** Client credentials of a global application, which names tenants by domain. */
  global: string;
  /** An implicit-grant user token: every user scope. */
  user: string;
  /** A password-grant user token of an `sms_` account: the notification scopes. */
  password: string;
}

export interface FuzzPlatform {
  url: string;
  tokens: FuzzTokens;
  /** Values that exist on the platform, so some inputs reach past "not found". */
  known: {
    userId: string;
    account: string;
    deptCode: string;
    postCode: string;
    /** A PNG anyone may download, with a thumbnail size asked for. */
    fileId: string;
    /** Its content. */
    fileContent: Buffer;
    /** A file that needs an access token to download. */
    secureFileId: string;
  };
  /** The external channel's endpoint: deliveries of fuzzed notifications land here. */
  channel: RecordingServer;
  /** Where the platform keeps its data: files under `files/`. */
  dataDir: string;
  /** Every route the gateway registers (method and Hono path), read from a gateway built like the served one. */
  registeredRoutes(): Promise<{ method: string; path: string }[]>;
  stop(): Promise<void>;
}

const ALL_SCOPES = SCOPES.map((scope) => scope.name);
const IMPLICIT_SCOPES = SCOPES.filter((scope) => scope.grants.includes("implicit")).map(
  (scope) => scope.name,
);

function bootstrap(channelUrl: string) {
  const seal = `data:image/png;base64,${sealPng().toString("base64")}`;
  return {
    tenants: [{ domain: TENANT, name: "Fuzz University" }],
    applications: [
      {
        id: "fuzz-app",
        secret: SECRET,
        name: "Fuzz",
        type: "enterprise",
        tenant: TENANT,
        scopes: ALL_SCOPES,
      },
      { id: "fuzz-global", secret: SECRET, name: "Fuzz everywhere", scopes: ALL_SCOPES },
      {
        id: "fuzz-portal",
        secret: SECRET,
        name: "Fuzz portal",
        type: "enterprise",
        tenant: TENANT,
        redirectUris: [PORTAL_REDIRECT],
        scopes: ALL_SCOPES,
        implicitAllowed: true,
      },
    ],
    users: [
      { tenant: TENANT, account: "fuzzer", name: "Fuzzer", password: PASSWORD, email: "fuzzer@fuzz.edu" },
      { tenant: TENANT, account: "sms_fuzzer", name: "SMS fuzzer", password: PASSWORD, mailEnabled: true },
    ],
    seals: [{ code: SEAL_CODE, tenant: TENANT, name: "Fuzz seal", image: seal, width: 60, height: 60 }],
    channels: [
      {
        name: "fuzz_wall",
        plugin: "http-channel",
        config: { url: `${channelUrl}/Notification`, secret: "fuzz-wall-secret-0123456789" },
        permittedApplications: ["fuzz-app", "fuzz-global"],
      },
    ],
  };
}

async function implicitToken(url: string): Promise<string> {
  const pages = await AuthorizationPages.open(url, {
    response_type: "token",
    client_id: "fuzz-portal",
    redirect_uri: PORTAL_REDIRECT,
    scope: IMPLICIT_SCOPES.join(" "),
  });
  await pages.signIn("fuzzer", PASSWORD);
  const location = await pages.decide("allow");
  const token = new URLSearchParams(location.hash.slice(1)).get("access_token");
  if (!token) throw new Error(`no implicit token: ${location}`);
  return token;
}

/** Calls the platform as a well-behaved client, to set up what the fuzzed requests then hit. */
async function call(
  url: string,
  token: string,
  method: string,
  path: string,
): Promise<Record<string, unknown>> {
  const response = await fetch(`${url}${path}`, { method, headers: { authorization: `Bearer ${token}` } });
  const body = (await response.json()) as { errno: number; entities: Record<string, unknown>[] };
  if (body.errno !== 0) throw new Error(`${method} ${path}: ${JSON.stringify(body)}`);
  return body.entities[0]!;
}

/** The content of the files the platform starts with: a small PNG. */
const FILE_CONTENT = sealPng(32);

async function upload(url: string, token: string, query: string): Promise<string> {
  const form = new FormData();
  form.set("file", new Blob([new Uint8Array(FILE_CONTENT)], { type: "image/png" }), "seal.png");
  form.set("thumbsizes", "16x16");
  const response = await fetch(`${url}/file${query}`, {
    method: "PUT",
    headers: { authorization: `Bearer ${token}` },
    body: form,
  });
  const body = (await response.json()) as { entities: { id: string }[] };
  return body.entities[0]!.id;
}

/**
 * The whole platform in this process on PGlite and the in-process broker (never the shared
 * services), with a tenant, applications approved for every scope, users, a seal, an external
 * notification channel, a department, a post and a position, and a token of every kind.
 */
export async function startFuzzPlatform(env: Record<string, string> = {}): Promise<FuzzPlatform> {
  // The embedded mode's environment, built here rather than by testModes(), which would look for
  // (and under CI insist on) the real services that this suite never uses.
  const dataDir = await tempDir();
  const prepared = { env: { DATA_DIR: dataDir.path }, cleanup: dataDir.remove };
  const channel = await RecordingServer.start(() => ({
    status: 200,
    body: { errno: 0, error: "", entities: [], total: 0 },
  }));
  let platform: TestPlatform | undefined;
  try {
    platform = await startTestPlatform({
      ...(await withBootstrap(prepared.env, bootstrap(channel.url))),
      ADMIN_TOKEN,
      BODY_LIMIT_BYTES: String(BODY_LIMIT_BYTES),
      FILE_MAX_UPLOAD_BYTES: String(UPLOAD_LIMIT_BYTES),
      SIGN_MAX_UPLOAD_BYTES: String(UPLOAD_LIMIT_BYTES),
      SIGN_TIMEOUT_MS: "15000",
      EXPORT_TIMEOUT_MS: "15000",
      NOTIFY_RETRY_DELAYS_MS: "1000",
      // A subscription the fuzzer opens is answered (or its stream ended) within a second.
      PUSH_HOLD_MS: "100",
      PUSH_STREAM_MAX_MS: "1000",
      ...env,
    });
    const { url } = platform;
    const client = { id: "fuzz-app", secret: SECRET };
    const tokens: FuzzTokens = {
      sys: await issueToken(url, client, { grant_type: "client_credentials" }),
      global: await issueToken(
        url,
        { id: "fuzz-global", secret: SECRET },
        { grant_type: "client_credentials" },
      ),
      user: await implicitToken(url),
      password: await issueToken(url, client, {
        grant_type: "password",
        username: "sms_fuzzer",
        password: PASSWORD,
        scope: "send_notification send_mail storage",
      }),
    };
    await call(url, tokens.sys, "PUT", "/apis/v2/triple/dept?code=fuzz-dept&name=Fuzz%20department");
    await call(url, tokens.sys, "PUT", "/apis/v2/triple/post?code=fuzz-post&name=Fuzz%20post");
    await call(url, tokens.sys, "PUT", "/apis/v2/position/fuzz-dept:fuzz-post/users?code=fuzzer&number=F-1");
    const user = await call(url, tokens.sys, "GET", "/apis/v2/triple/user/fuzzer");
    const running = platform;
    return {
      url,
      dataDir: dataDir.path,
      tokens,
      known: {
        userId: String(user.id),
        account: "fuzzer",
        deptCode: "fuzz-dept",
        postCode: "fuzz-post",
        fileId: await upload(url, tokens.sys, ""),
        fileContent: FILE_CONTENT,
        secureFileId: await upload(url, tokens.sys, "?secure=true"),
      },
      channel,
      async registeredRoutes() {
        const { platform, channels } = running.running;
        const services = await createGatewayServices(platform, channels);
        return createGateway({ ...platform, ...services, draining: { value: false } }).app.routes;
      },
      async stop() {
        await running.stop();
        await channel.close();
        await prepared.cleanup();
      },
    };
  } catch (error) {
    await platform?.stop();
    await channel.close();
    await prepared.cleanup();
    throw error;
  }
}
