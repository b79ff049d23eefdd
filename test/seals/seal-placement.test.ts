import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { LocationItem } from "../../contracts/signature.ts";
import { PlacementError, placeItems, placeOnKeyword } from "../../workers/sign/seal-placement.ts";

const A4 = { width: 595, height: 842 };
const seal = { width: 100, height: 80 };
const threePages = [A4, A4, A4];

type Row = [rule: string, items: LocationItem[], expected: [page: number, x: number, y: number][]];

const table: Row[] = [
  ["rule 3: XY mode, y is the centre from the bottom", [{ pageNo: 1, x: 10, y: 100 }], [[0, 10, 60]]],
  ["rule 3: a missing x is 0", [{ pageNo: 1, y: 100 }], [[0, 0, 60]]],
  ["rule 3: a missing y is 0 (the seal's centre on the bottom edge)", [{ pageNo: 1, x: 5 }], [[0, 5, -40]]],
  ["rule 2: XY wins over offsets", [{ pageNo: 1, x: 10, y: 100, top: 5, left: 7 }], [[0, 10, 60]]],
  ["rule 3: offsets measure edges: left and bottom", [{ pageNo: 2, left: 20, bottom: 30 }], [[1, 20, 30]]],
  ["rule 3: offsets: right and top", [{ pageNo: 2, right: 20, top: 30 }], [[1, 475, 732]]],
  ["rule 3: top beats bottom", [{ pageNo: 1, top: 30, bottom: 500 }], [[0, 0, 732]]],
  ["rule 3: left beats right", [{ pageNo: 1, left: 15, right: 300 }], [[0, 15, 0]]],
  ["rule 3: every missing offset is 0", [{ pageNo: 3 }], [[2, 0, 0]]],
  [
    "rule 4: no pageNo seals every page",
    [{ left: 1, bottom: 2 }],
    [
      [0, 1, 2],
      [1, 1, 2],
      [2, 1, 2],
    ],
  ],
  [
    "rule 5: an item with pageNo overrides the expanded one on its page",
    [
      { left: 1, bottom: 2 },
      { pageNo: 2, x: 50, y: 50 },
    ],
    [
      [0, 1, 2],
      [1, 50, 10],
      [2, 1, 2],
    ],
  ],
  [
    "rule 5: the override holds whatever the order",
    [
      { pageNo: 2, x: 50, y: 50 },
      { left: 1, bottom: 2 },
    ],
    [
      [0, 1, 2],
      [1, 50, 10],
      [2, 1, 2],
    ],
  ],
  [
    "rule 6: the first of the same pageNo wins",
    [
      { pageNo: 1, left: 1 },
      { pageNo: 1, left: 99 },
    ],
    [[0, 1, 0]],
  ],
  [
    "rule 6: the first of several without pageNo wins",
    [{ left: 1 }, { left: 99 }],
    [
      [0, 1, 0],
      [1, 1, 0],
      [2, 1, 0],
    ],
  ],
  ["no items, no seals", [], []],
];

describe("seal placement (spec 000 rules 2–7)", () => {
  for (const [rule, items, expected] of table) {
    it(rule, () => {
      const placed = placeItems(items, threePages, seal);
      assert.deepEqual(
        placed.map((p) => [p.pageIndex, p.x, p.y]),
        expected,
      );
      for (const p of placed) assert.deepEqual([p.width, p.height], [seal.width, seal.height]);
    });
  }

  it("uses each page's own size for offsets from the right and the top", () => {
    const landscape = { width: 842, height: 595 };
    const placed = placeItems([{ right: 10, top: 10 }], [A4, landscape], seal);
    assert.deepEqual(
      placed.map((p) => [p.pageIndex, p.x, p.y]),
      [
        [0, 485, 752],
        [1, 732, 505],
      ],
    );
  });

  it("rule 7: QR items may carry their own width and height", () => {
    const qr = { width: 60, height: 60 };
    const placed = placeItems(
      [{ pageNo: 1, right: 0, top: 0, width: 90, height: 90 }, { bottom: 0 }],
      [A4, A4],
      qr,
      { sizedItems: true },
    );
    assert.deepEqual(
      placed.map((p) => [p.pageIndex, p.x, p.y, p.width, p.height]),
      [
        [0, 505, 752, 90, 90],
        [1, 0, 0, 60, 60],
      ],
    );
  });

  it("ignores width and height on seal items", () => {
    const [placed] = placeItems([{ pageNo: 1, width: 500, height: 500 }], [A4], seal);
    assert.deepEqual([placed!.width, placed!.height], [100, 80]);
  });

  it("refuses a pageNo outside the document", () => {
    for (const pageNo of [0, 4, -1]) {
      assert.throws(
        () => placeItems([{ pageNo }], threePages, seal),
        (error: unknown) =>
          error instanceof PlacementError &&
          /pageNo .* out of range: the PDF has 3 pages/.test(error.message),
      );
    }
  });
});

describe("keyword placement", () => {
  const matches = [
    { pageIndex: 0, centreX: 100, centreY: 700 },
    { pageIndex: 1, centreX: 200, centreY: 500 },
    { pageIndex: 2, centreX: 300, centreY: 300 },
  ];
  const at = (placed: { pageIndex: number; x: number; y: number }[]) =>
    placed.map((p) => [p.pageIndex, p.x, p.y]);

  it("centres the seal on the match: by default the last one (order 2, seq 1)", () => {
    assert.deepEqual(at(placeOnKeyword(matches, "k", 2, 1, seal)), [[2, 250, 260]]);
  });
  it("order 1 counts from the start", () => {
    assert.deepEqual(at(placeOnKeyword(matches, "k", 1, 2, seal)), [[1, 150, 460]]);
  });
  it("order 2 counts from the end", () => {
    assert.deepEqual(at(placeOnKeyword(matches, "k", 2, 3, seal)), [[0, 50, 660]]);
  });
  it("order 0 seals every match", () => {
    assert.equal(placeOnKeyword(matches, "k", 0, 1, seal).length, 3);
  });
  it("a missing keyword or a seq past the last match is an error", () => {
    assert.throws(() => placeOnKeyword([], "合同", 2, 1, seal), /keyword "合同" is not in the PDF's text/);
    assert.throws(
      () => placeOnKeyword(matches, "k", 1, 4, seal),
      /occurs 3 times; keywordSeq 4 is past the last/,
    );
  });
});
