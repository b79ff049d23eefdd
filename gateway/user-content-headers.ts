/**
 * Types a browser shows without running anything in them: only these are ever served inline.
 * HTML, XML, SVG and unknown types may carry script, so they are always attachments.
 */
const INERT_INLINE_TYPES: ReadonlySet<string> = new Set([
  "image/png",
  "image/jpeg",
  "image/gif",
  "image/webp",
  "image/bmp",
  "application/pdf",
  "text/plain",
]);

/**
 * Whatever a browser makes of the content, nothing in it runs, loads or reaches the platform's
 * origin: no sniffing into another type, and a sandbox (a unique origin, no script, no forms).
 */
export const USER_CONTENT_SECURITY = {
  "x-content-type-options": "nosniff",
  "content-security-policy": "sandbox; default-src 'none'",
} as const;

/** RFC 8187's attr-char: what encodeURIComponent leaves alone, less the characters it may not hold. */
function extendedValue(text: string): string {
  return encodeURIComponent(text).replace(
    /['()*]/g,
    (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

/** The name as a quoted string for clients without RFC 8187; anything but printable ASCII becomes `_`. */
function asciiFallback(text: string): string {
  return text.replace(/[^\x20-\x7e]|["\\]/g, "_");
}

/** True when content of this type may be shown in the browser rather than saved. */
export function servedInline(mime: string): boolean {
  return INERT_INLINE_TYPES.has(mime.split(";", 1)[0]!.trim().toLowerCase());
}

/**
 * The headers of every answer that hands back content a caller supplied or shaped (uploaded
 * files, their thumbnails, exports, sealed PDFs): its type, the sandbox, and an attachment unless
 * the type is inert. `attachment` makes even an inert type one, for answers meant to be saved.
 */
export function userContentHeaders(
  mime: string,
  options: { filename?: string; attachment?: boolean } = {},
): Record<string, string> {
  const disposition = !options.attachment && servedInline(mime) ? "inline" : "attachment";
  const name = options.filename;
  return {
    "content-type": mime,
    ...USER_CONTENT_SECURITY,
    "content-disposition":
      name === undefined
        ? disposition
        : `${disposition}; filename="${asciiFallback(name)}"; filename*=UTF-8''${extendedValue(name)}`,
  };
}
