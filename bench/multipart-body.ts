/** A multipart/form-data body, made whole beforehand so that building it costs the run nothing. */
export function multipartBody(
  boundary: string,
  fields: Record<string, string>,
  file: { name: string; type: string; bytes: Uint8Array },
): Buffer {
  const parts = Object.entries(fields).map(
    ([name, value]) => `--${boundary}\r\ncontent-disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`,
  );
  return Buffer.concat([
    Buffer.from(
      `${parts.join("")}--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="${file.name}"\r\ncontent-type: ${file.type}\r\n\r\n`,
    ),
    file.bytes,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
}
