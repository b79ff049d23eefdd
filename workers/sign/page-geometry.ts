import type { PDFPage } from "pdf-lib";
import type { VisiblePage } from "./seal-placement.ts";

/**
 * A page as a reader sees it: the crop box (the media box when there is none), turned by the
 * page's /Rotate. Marks are placed in this visible frame and drawn in the page's own user space.
 */
export interface PageGeometry extends VisiblePage {
  /** Clockwise quarter turns a viewer applies: 0, 90, 180 or 270. */
  rotation: 0 | 90 | 180 | 270;
  box: { x: number; y: number; width: number; height: number };
}

export function pageGeometry(page: PDFPage): PageGeometry {
  const box = page.getCropBox();
  const turned = (((page.getRotation().angle % 360) + 360) % 360) as PageGeometry["rotation"];
  const rotation = ([0, 90, 180, 270] as const).includes(turned) ? turned : 0;
  const sideways = rotation === 90 || rotation === 270;
  return {
    rotation,
    box,
    width: sideways ? box.height : box.width,
    height: sideways ? box.width : box.height,
  };
}

/** The user-space point under a point of the visible page (from its lower-left corner). */
export function toUserSpace(geometry: PageGeometry, vx: number, vy: number): { x: number; y: number } {
  const { box, rotation } = geometry;
  switch (rotation) {
    case 90:
      return { x: box.x + box.width - vy, y: box.y + vx };
    case 180:
      return { x: box.x + box.width - vx, y: box.y + box.height - vy };
    case 270:
      return { x: box.x + vy, y: box.y + box.height - vx };
    default:
      return { x: box.x + vx, y: box.y + vy };
  }
}

/** The visible-page point over a user-space point: the inverse of `toUserSpace`. */
export function toVisible(geometry: PageGeometry, ux: number, uy: number): { x: number; y: number } {
  const { box, rotation } = geometry;
  const a = ux - box.x;
  const b = uy - box.y;
  switch (rotation) {
    case 90:
      return { x: b, y: box.width - a };
    case 180:
      return { x: box.width - a, y: box.height - b };
    case 270:
      return { x: box.height - b, y: a };
    default:
      return { x: a, y: b };
  }
}
