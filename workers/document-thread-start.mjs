// How a document thread starts (see document-thread.ts). JavaScript, not TypeScript: on Node 20
// a thread does not inherit the TypeScript loader its process was started with (`--import tsx`
// registers it on the main thread only), so this file registers it when the thread lacks it.
import { importTypeScriptToo } from "../runtime/typescript-import.mjs";

await importTypeScriptToo(new URL("./document-thread-entry.ts", import.meta.url).href);
