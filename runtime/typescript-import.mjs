// JavaScript, not TypeScript: it serves processes and threads running without the TypeScript
// loader (a document thread on Node 20, which does not inherit its process's loader; a platform
// started by bin/launch.mjs, which runs built), so that they can still load TypeScript when they
// must: the thread's entry, a channel plugin given by the path of a .ts file.

/** @type {Promise<void> | undefined} */
let registered;

/**
 * Imports `url` (an absolute address, or an npm package name); a TypeScript module this process
 * cannot load yet is loaded after registering tsx, once for the process or thread.
 * @param {string} url
 * @returns {Promise<unknown>}
 */
export async function importTypeScriptToo(url) {
  try {
    return await import(url);
  } catch (error) {
    if (error?.code !== "ERR_UNKNOWN_FILE_EXTENSION") throw error;
    registered ??= import("tsx/esm/api").then(({ register }) => {
      register();
    });
    await registered;
    // Another address than the failed one, whose failure the module cache keeps.
    return import(`${url}${url.includes("?") ? "&" : "?"}typescript`);
  }
}
