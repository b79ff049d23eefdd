// How a document thread starts (see document-thread.ts). JavaScript, not TypeScript: on Node 20
// a thread does not inherit the TypeScript loader its process was started with (`--import tsx`
// registers it on the main thread only), so this file registers it when the thread lacks it.
try {
  await import("./document-thread-entry.ts");
} catch (error) {
  if (error?.code !== "ERR_UNKNOWN_FILE_EXTENSION") throw error;
  const { register } = await import("tsx/esm/api");
  register();
  // Another address than the failed one, whose failure the thread's module cache keeps.
  await import("./document-thread-entry.ts?typescript");
}
