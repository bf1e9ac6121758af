/** The request ring: bounded by entries and by bytes, oldest dropped first, listed oldest first. */
import { describe, expect, it } from "vitest";
import { ENTRY_OVERHEAD_BYTES, RequestRing } from "../../server/inspect.js";

const noBody = { text: undefined, bytes: 0 };
const push = (ring: RequestRing, n: number, body: { text: string | undefined; bytes: number } = noBody) =>
  ring.push({ method: "GET", path: `/p${n}`, status: 200, durationMs: 1 }, body);

describe("RequestRing", () => {
  it("over 5,000 pushes keeps exactly the last `capacity` requests, oldest first, and accounts for them alone", () => {
    const ring = new RequestRing(7);
    for (let n = 1; n <= 5000; n++) {
      push(ring, n);
      // The same window after every push, through every drop and every compaction of the kept entries.
      const expected = Array.from({ length: Math.min(n, 7) }, (_, i) => `/p${n - Math.min(n, 7) + 1 + i}`);
      expect(ring.list().map((r) => r.path)).toEqual(expected);
      expect(ring.bytes).toBe(expected.reduce((sum, path) => sum + ENTRY_OVERHEAD_BYTES + 2 * path.length, 0));
    }
    expect(ring.list(3).map((r) => r.seq)).toEqual([4998, 4999, 5000]);
    expect(ring.list(0)).toEqual([]);
  });

  it("drops the oldest requests when the byte budget would be passed, and clear empties it", () => {
    const text = JSON.stringify({ description: "x".repeat(1000) });
    const perEntry = ENTRY_OVERHEAD_BYTES + 2 * ("/p1".length + text.length);
    const ring = new RequestRing(100, 3 * perEntry);
    for (let n = 1; n <= 9; n++) push(ring, n, { text, bytes: text.length });
    expect(ring.list().map((r) => r.path)).toEqual(["/p7", "/p8", "/p9"]);
    expect(ring.list()[0]?.body).toEqual({ description: "x".repeat(1000) });
    expect(ring.bytes).toBe(3 * perEntry);
    ring.clear();
    expect(ring.list()).toEqual([]);
    expect(ring.bytes).toBe(0);
    push(ring, 10);
    expect(ring.list().map((r) => [r.seq, r.path])).toEqual([[10, "/p10"]]);
  });
});
