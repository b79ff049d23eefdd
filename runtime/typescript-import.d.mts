/** See typescript-import.mjs. */
export function importTypeScriptToo(url: string): Promise<unknown>;
