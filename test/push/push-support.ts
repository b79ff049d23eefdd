import assert from "node:assert/strict";
import { PORTAL_REDIRECT, WORKFLOW_PASSWORD, WORKFLOW_TENANTS } from "../support/workflow-fixture.ts";

/** The push suites' tenants, applications and users. */
export const PUSH_SECRET = "push-suite-secret-0123456789abcdefghijkl";

export function pushBootstrap() {
  return {
    tenants: WORKFLOW_TENANTS,
    applications: [
      {
        id: "portal",
        secret: PUSH_SECRET,
        name: "Portal",
        type: "enterprise",
        tenant: "example.edu",
        redirectUris: [PORTAL_REDIRECT],
        scopes: ["sys_message_edit", "sys_task", "task"],
      },
      {
        id: "other",
        secret: PUSH_SECRET,
        name: "Other",
        type: "enterprise",
        tenant: "other.edu",
        scopes: ["sys_message_edit"],
      },
    ],
    users: [
      { tenant: "example.edu", account: "alice", name: "Alice" },
      { tenant: "example.edu", account: "bob", name: "Bob" },
      { tenant: "other.edu", account: "carol", name: "Carol" },
    ].map((user) => ({ ...user, password: WORKFLOW_PASSWORD })),
  };
}

export interface Message {
  uid: string;
  type: string;
  eid: string;
  time: number;
  payload: null;
}

export interface PublishResult {
  error: string;
  time: number;
  message: Message;
}

export interface SubscribeResult {
  error: string;
  time: number;
  messages: Message[];
}

/** POST /message on a data mode's API base; the answer's body, whatever it is. */
export async function publish(
  url: string,
  token: string,
  params: Record<string, string>,
  base = "/apis/v2",
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${url}${base}/message`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(params),
    signal: AbortSignal.timeout(10_000),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** A publish that must succeed: the MessageResult. */
export async function published(
  url: string,
  token: string,
  params: Record<string, string>,
  base?: string,
): Promise<PublishResult> {
  const { status, body } = await publish(url, token, params, base);
  assert.equal(status, 200, JSON.stringify(body));
  assert.equal(body.error, "", JSON.stringify(body));
  return body as unknown as PublishResult;
}

/** GET /message/sub with the token as a bearer; `signal` ends it early. */
export async function subscribe(
  url: string,
  token: string,
  params: Record<string, string>,
  signal: AbortSignal = AbortSignal.timeout(20_000),
): Promise<{ status: number; body: Record<string, unknown> }> {
  const query = new URLSearchParams(params).toString();
  const response = await fetch(`${url}/message/sub${query ? `?${query}` : ""}`, {
    headers: { authorization: `Bearer ${token}` },
    signal,
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** A subscription that must succeed: the MessageResult. */
export async function subscribed(
  url: string,
  token: string,
  params: Record<string, string>,
  signal?: AbortSignal,
): Promise<SubscribeResult> {
  const { status, body } = await subscribe(url, token, params, signal);
  assert.equal(status, 200, JSON.stringify(body));
  assert.equal(body.error, "", JSON.stringify(body));
  return body as unknown as SubscribeResult;
}

/** Resolves with `promise`, or fails once `ms` have passed. */
export async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Reads Server-Sent Events off a response body, one at a time. */
export class EventReader {
  private buffer = "";
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private readonly decoder = new TextDecoder();

  constructor(body: ReadableStream<Uint8Array>) {
    this.reader = body.getReader();
  }

  /** The next event with data (comments skipped): its id and parsed data. */
  async next(): Promise<{ id: string | undefined; data: Message }> {
    for (;;) {
      const end = this.buffer.indexOf("\n\n");
      if (end >= 0) {
        const block = this.buffer.slice(0, end);
        this.buffer = this.buffer.slice(end + 2);
        const lines = block.split("\n");
        const data = lines.filter((line) => line.startsWith("data: ")).map((line) => line.slice(6));
        if (data.length === 0) continue;
        const id = lines.find((line) => line.startsWith("id: "))?.slice(4);
        return { id, data: JSON.parse(data.join("\n")) as Message };
      }
      const { value, done } = await this.reader.read();
      if (done) throw new Error("the stream ended");
      this.buffer += this.decoder.decode(value, { stream: true });
    }
  }

  /** Whatever has arrived so far, raw. */
  get pending(): string {
    return this.buffer;
  }

  async cancel(): Promise<void> {
    await this.reader.cancel().catch(() => {});
  }
}
