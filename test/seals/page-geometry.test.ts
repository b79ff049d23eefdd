import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type PageGeometry, toUserSpace, toVisible } from "../../workers/sign/page-geometry.ts";

const box = { x: 10, y: 20, width: 600, height: 800 };
const geometry = (rotation: PageGeometry["rotation"]): PageGeometry => {
  const sideways = rotation === 90 || rotation === 270;
  return { rotation, box, width: sideways ? 800 : 600, height: sideways ? 600 : 800 };
};

describe("page geometry", () => {
  // The reader's lower-left corner, per /Rotate (turned clockwise when shown).
  const lowerLeft: [PageGeometry["rotation"], { x: number; y: number }][] = [
    [0, { x: 10, y: 20 }],
    [90, { x: 610, y: 20 }],
    [180, { x: 610, y: 820 }],
    [270, { x: 10, y: 820 }],
  ];
  for (const [rotation, corner] of lowerLeft) {
    it(`maps the reader's lower left to user space on a page turned ${rotation}°`, () => {
      assert.deepEqual(toUserSpace(geometry(rotation), 0, 0), corner);
    });
    it(`round-trips points on a page turned ${rotation}°`, () => {
      for (const [vx, vy] of [
        [0, 0],
        [123, 45],
        [geometry(rotation).width, geometry(rotation).height],
      ] as const) {
        const user = toUserSpace(geometry(rotation), vx, vy);
        assert.deepEqual(toVisible(geometry(rotation), user.x, user.y), { x: vx, y: vy });
      }
    });
  }

  it("follows the turn: on a page turned 90° clockwise the page's left edge is shown on top", () => {
    const from = toUserSpace(geometry(90), 100, 100);
    const up = toUserSpace(geometry(90), 100, 200);
    const right = toUserSpace(geometry(90), 200, 100);
    assert.deepEqual([up.x - from.x, up.y - from.y], [-100, 0], "the reader's up is user-space −x");
    assert.deepEqual([right.x - from.x, right.y - from.y], [0, 100], "the reader's right is user-space +y");
  });
});
