import { crc32 } from "node:zlib";
import { PNG } from "pngjs";

/**
 * Distinct 320×240 PNG images, as users' uploads are (the platform stores equal content once,
 * which would make repeated uploads cheaper than real ones). One picture is encoded once; each
 * copy carries its own text chunk before the image end, so no copy costs an encoding.
 */
export function distinctPngs(): (n: number) => Buffer {
  const png = new PNG({ width: 320, height: 240 });
  for (let i = 0; i < png.data.length; i++) png.data[i] = (i * 7919) % 251;
  const encoded = PNG.sync.write(png);
  const end = encoded.length - 12; // the IEND chunk: length, type, CRC
  return (n) => {
    const data = Buffer.from(`Comment\0upload ${n}`);
    const typeAndData = Buffer.concat([Buffer.from("tEXt"), data]);
    const chunk = Buffer.alloc(12 + data.length);
    chunk.writeUInt32BE(data.length, 0);
    typeAndData.copy(chunk, 4);
    chunk.writeUInt32BE(crc32(typeAndData) >>> 0, 8 + data.length);
    return Buffer.concat([encoded.subarray(0, end), chunk, encoded.subarray(end)]);
  };
}
