import { setTimeout as sleep } from "node:timers/promises";
import { type Dispatcher, request } from "undici";
import { makePdf } from "../test/support/pdf-fixtures.ts";
import { distinctPngs } from "./distinct-images.ts";
import { multipartBody } from "./multipart-body.ts";

/** The requests of the mixed workload, each as an application makes it. */
export type RequestKind = "token" | "send" | "status" | "seal" | "upload";

const BOUNDARY = "bench-load-boundary-5e1c";
export const RECIPIENTS = 5;
/** A status query asks for the latest notifications sent, as an app polling its recent sends does. */
const STATUS_IDS = 10;
export const THUMB_SIZE = "64x64";

export interface MixedRequestsOptions {
  url: string;
  dispatcher: Dispatcher;
  client: { id: string; secret: string };
  /** A client-credentials token with send_app_notification, notifications and signature. */
  token: string;
  sealCode: string;
}

async function expectOk(response: Dispatcher.ResponseData, what: string): Promise<Buffer> {
  const body = Buffer.from(await response.body.arrayBuffer());
  if (response.statusCode !== 200)
    throw new Error(`${what} answered ${response.statusCode}: ${body.toString().slice(0, 200)}`);
  return body;
}

/**
 * One application's calls: each throws unless the answer is what the API promises. Remembers the
 * notifications sent and files uploaded, so their deliveries and thumbnails can be checked after.
 */
export async function mixedRequests(options: MixedRequestsOptions) {
  const { url, dispatcher } = options;
  const basic = `Basic ${Buffer.from(`${options.client.id}:${options.client.secret}`).toString("base64")}`;
  const bearer = { authorization: `Bearer ${options.token}` };
  const contract = await makePdf([
    {
      text: Array.from({ length: 40 }, (_, line) => ({
        value: `Clause ${line + 1}: the parties agree to the terms.`,
        x: 60,
        y: 780 - line * 18,
      })),
    },
  ]);
  const sealBody = multipartBody(
    BOUNDARY,
    { locations: JSON.stringify([{ right: 40, bottom: 40 }]) },
    { name: "contract.pdf", type: "application/pdf", bytes: contract },
  );
  const png = distinctPngs();
  const sent: string[] = [];
  const uploaded: string[] = [];
  // Numbered when made, not when answered, so calls in flight together never share content.
  let sends = 0;
  let uploads = 0;

  const calls: Record<RequestKind, () => Promise<void>> = {
    async token() {
      const response = await request(`${url}/oauth2/token`, {
        method: "POST",
        dispatcher,
        headers: { "content-type": "application/x-www-form-urlencoded", authorization: basic },
        body: "grant_type=client_credentials&scope=signature",
      });
      const body = await expectOk(response, "token");
      if (!(JSON.parse(body.toString()) as { access_token?: string }).access_token)
        throw new Error("token answer without access_token");
    },
    async send() {
      const n = sends++;
      const response = await request(`${url}/v1/notification`, {
        method: "PUT",
        dispatcher,
        headers: { ...bearer, "content-type": "application/json" },
        body: JSON.stringify({
          channels: ["app"],
          accounts: Array.from({ length: RECIPIENTS }, (_, i) => `student-${n}-${i}`),
          name: `Notice ${n}`,
          content: "The library closes at noon on Friday.",
        }),
      });
      const body = await expectOk(response, "send");
      sent.push((JSON.parse(body.toString()) as { entities: { id: string }[] }).entities[0]!.id);
    },
    async status() {
      const ids = sent.slice(-STATUS_IDS);
      const response = await request(`${url}/notification/status?id=${ids.join(",")}`, {
        dispatcher,
        headers: bearer,
      });
      const body = await expectOk(response, "status");
      const { total } = JSON.parse(body.toString()) as { total: number };
      if (total !== ids.length) throw new Error(`status of ${ids.length} notifications listed ${total}`);
    },
    async seal() {
      const response = await request(`${url}/v1/signature/${options.sealCode}`, {
        method: "POST",
        dispatcher,
        headers: { ...bearer, "content-type": `multipart/form-data; boundary=${BOUNDARY}` },
        body: sealBody,
      });
      const body = await expectOk(response, "seal");
      if (body.subarray(0, 5).toString() !== "%PDF-") throw new Error("seal answer is not a PDF");
    },
    async upload() {
      const n = uploads++;
      const response = await request(`${url}/file`, {
        method: "PUT",
        dispatcher,
        headers: { ...bearer, "content-type": `multipart/form-data; boundary=${BOUNDARY}` },
        body: multipartBody(
          BOUNDARY,
          { thumbsizes: THUMB_SIZE },
          { name: `photo-${n}.png`, type: "image/png", bytes: png(n) },
        ),
      });
      const body = await expectOk(response, "upload");
      uploaded.push((JSON.parse(body.toString()) as { entities: { id: string }[] }).entities[0]!.id);
    },
  };

  /**
   * Delivery tasks of these notifications not `sent`, as the status query shows them, once all
   * are or `deadlineMs` has passed; a notification the query does not list counts all its tasks.
   */
  const unsentTasks = async (ids: string[], deadlineMs: number): Promise<number> => {
    const deadline = performance.now() + deadlineMs;
    for (;;) {
      let unsent = 0;
      for (let start = 0; start < ids.length; start += 100) {
        const batch = ids.slice(start, start + 100);
        const response = await request(`${url}/notification/status?id=${batch.join(",")}`, {
          dispatcher,
          headers: bearer,
        });
        const { entities } = JSON.parse((await expectOk(response, "status")).toString()) as {
          entities: { tasks: { sendingStatus: string }[] }[];
        };
        unsent += (batch.length - entities.length) * RECIPIENTS;
        for (const entity of entities) {
          unsent += entity.tasks.filter((task) => task.sendingStatus !== "sent").length;
          unsent += RECIPIENTS - entity.tasks.length;
        }
      }
      if (unsent === 0 || performance.now() > deadline) return unsent;
      await sleep(500);
    }
  };

  return { calls, sent, uploaded, unsentTasks };
}
