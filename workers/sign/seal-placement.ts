import type { LocationItem } from "../../contracts/signature.ts";

/** A page as a reader sees it: its visible width and height in points. */
export interface VisiblePage {
  width: number;
  height: number;
}

/** Where one mark (seal or QR code) goes: its lower-left corner, from the visible page's lower left. */
export interface Placement {
  /** 0-based. */
  pageIndex: number;
  x: number;
  y: number;
  width: number;
  height: number;
}

export class PlacementError extends Error {
  override name = "PlacementError";
}

/**
 * Spec 000's placement rules 2–7 for coordinate items. Rule 4: an item without `pageNo` covers
 * every page; rule 5: an item with `pageNo` overrides it on its page; rule 6: the first of several
 * items for a page (or of several without `pageNo`) wins, so a page gets one mark at most.
 * `size` is the mark's own size; a QR item's `width`/`height` override it.
 */
export function placeItems(
  items: readonly LocationItem[],
  pages: readonly VisiblePage[],
  size: { width: number; height: number },
  options: { sizedItems?: boolean } = {},
): Placement[] {
  let everyPage: LocationItem | undefined;
  const byPage = new Map<number, LocationItem>();
  for (const item of items) {
    if (item.pageNo === undefined) {
      everyPage ??= item;
      continue;
    }
    if (item.pageNo < 1 || item.pageNo > pages.length) {
      throw new PlacementError(`pageNo ${item.pageNo} is out of range: the PDF has ${pages.length} pages`);
    }
    if (!byPage.has(item.pageNo - 1)) byPage.set(item.pageNo - 1, item);
  }
  const placements: Placement[] = [];
  for (const [pageIndex, page] of pages.entries()) {
    const item = byPage.get(pageIndex) ?? everyPage;
    if (!item) continue;
    const width = (options.sizedItems ? item.width : undefined) ?? size.width;
    const height = (options.sizedItems ? item.height : undefined) ?? size.height;
    placements.push({ pageIndex, ...corner(item, page, width, height), width, height });
  }
  return placements;
}

/**
 * Rules 2–3: XY wins over offsets; `x` is the left edge and `y` the centre from the bottom, each 0
 * when missing. In offset mode a missing offset is 0, `top` beats `bottom`, `left` beats `right`,
 * each measuring the mark's edge from the page's edge.
 */
function corner(item: LocationItem, page: VisiblePage, width: number, height: number) {
  if (item.x !== undefined || item.y !== undefined) {
    return { x: item.x ?? 0, y: (item.y ?? 0) - height / 2 };
  }
  const x =
    item.left !== undefined ? item.left : item.right !== undefined ? page.width - item.right - width : 0;
  const y =
    item.top !== undefined ? page.height - item.top - height : item.bottom !== undefined ? item.bottom : 0;
  return { x, y };
}

/** A keyword match: the centre of the matched text on its page, in visible-page coordinates. */
export interface KeywordMatch {
  pageIndex: number;
  centreX: number;
  centreY: number;
}

/**
 * The keyword rules: order 0 seals every match, 1 the `seq`-th from the start, 2 the `seq`-th from
 * the end; the seal is centred on the matched text.
 */
export function placeOnKeyword(
  matches: readonly KeywordMatch[],
  keyword: string,
  order: 0 | 1 | 2,
  seq: number,
  size: { width: number; height: number },
): Placement[] {
  const chosen =
    order === 0 ? matches : [order === 1 ? matches[seq - 1] : matches[matches.length - seq]].filter((m) => m);
  if (chosen.length === 0) {
    throw new PlacementError(
      matches.length === 0
        ? `keyword "${keyword}" is not in the PDF's text`
        : `keyword "${keyword}" occurs ${matches.length} times; keywordSeq ${seq} is past the last`,
    );
  }
  return chosen.map((match) => ({
    pageIndex: match!.pageIndex,
    x: match!.centreX - size.width / 2,
    y: match!.centreY - size.height / 2,
    width: size.width,
    height: size.height,
  }));
}
