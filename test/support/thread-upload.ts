import { once } from "node:events";
import { Worker } from "node:worker_threads";

/** The answer to a multipart POST: status, content type and body text. */
export interface UploadAnswer {
  status: number;
  type: string | null;
  text: string;
}

// Plain JavaScript, so the thread needs no TypeScript loader.
const CLIENT = `
const { parentPort, workerData } = require("node:worker_threads");
const { url, fields, bytes, filename } = workerData;
const form = new FormData();
for (const [name, value] of Object.entries(fields)) form.set(name, value);
form.set("file", new Blob([bytes], { type: "application/pdf" }), filename);
fetch(url, { method: "POST", body: form })
  .then(async (response) => ({
    status: response.status,
    type: response.headers.get("content-type"),
    text: await response.text(),
  }))
  .then((answer) => parentPort.postMessage({ answer }), (error) => parentPort.postMessage({ error: String(error) }));
`;

/**
 * POSTs a file as multipart/form-data from a thread of its own, handing the bytes over: the
 * caller's view of them is empty afterwards. An HTTP client copies and frames
 * a large body on the thread that sends it; sent from the test's main thread, that work would count
 * as the event loop the platform shares with the test being blocked.
 */
export async function uploadFromThread(
  url: string,
  fields: Record<string, string>,
  bytes: Uint8Array,
  filename = "document.pdf",
): Promise<UploadAnswer> {
  // Handed over, neither serialized nor copied: either would take the sender a large part of a
  // second for 20 MB on a machine slow to give out fresh memory.
  const owned =
    bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : bytes.slice();
  const worker = new Worker(CLIENT, {
    eval: true,
    workerData: { url, fields, bytes: owned, filename },
    transferList: [owned.buffer as ArrayBuffer],
    execArgv: [],
  });
  try {
    const [message] = (await once(worker, "message")) as [{ answer?: UploadAnswer; error?: string }];
    if (message.error !== undefined) throw new Error(`the upload failed: ${message.error}`);
    return message.answer!;
  } finally {
    await worker.terminate();
  }
}
