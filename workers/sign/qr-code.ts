import QRCode from "qrcode";

/**
 * The dark modules of a QR code as rectangles in a unit square (0–1 on both axes, origin at the
 * lower left), quiet zone included, with runs of a row merged into one rectangle.
 */
export function qrRectangles(text: string): { x: number; y: number; width: number; height: number }[] {
  const { modules } = QRCode.create(text, { errorCorrectionLevel: "M" });
  const quiet = 4;
  const size = modules.size;
  const unit = 1 / (size + 2 * quiet);
  const rectangles: { x: number; y: number; width: number; height: number }[] = [];
  for (let row = 0; row < size; row++) {
    let runStart = -1;
    for (let column = 0; column <= size; column++) {
      const dark = column < size && modules.get(row, column) === 1;
      if (dark && runStart < 0) runStart = column;
      if (!dark && runStart >= 0) {
        rectangles.push({
          x: (quiet + runStart) * unit,
          y: 1 - (quiet + row + 1) * unit,
          width: (column - runStart) * unit,
          height: unit,
        });
        runStart = -1;
      }
    }
  }
  return rectangles;
}
