/** The request ring: bounded by entries and by bytes, oldest dropped first, listed oldest first. */
import { describe, expect, it } from "vitest";
import { ENTRY_OVERHEAD_BYTES, RequestLog, RequestRing } from "../../server/inspect.js";

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

describe("RequestLog", () => {
  it("keeps the console's requests in a ring of their own: 50 of them push out none of a program's 3", () => {
    const log = new RequestLog(3, 1024 * 1024, 4, 1024 * 1024);
    const pushed = (path: string, client?: "console") =>
      log.push({ method: "GET", path, status: 200, durationMs: 1, ...(client ? { client } : {}) }, noBody);
    pushed("/console-0", "console");
    for (let n = 1; n <= 3; n++) pushed(`/program-${n}`);
    for (let n = 1; n <= 50; n++) pushed(`/console-${n}`, "console");
    // Both rings listed as one, in the order the requests were answered (one sequence), the console's marked.
    expect(log.list().map((r) => [r.seq, r.path, r.client])).toEqual([
      [2, "/program-1", undefined],
      [3, "/program-2", undefined],
      [4, "/program-3", undefined],
      [51, "/console-47", "console"],
      [52, "/console-48", "console"],
      [53, "/console-49", "console"],
      [54, "/console-50", "console"],
    ]);
    expect(log.list(2).map((r) => r.path)).toEqual(["/console-49", "/console-50"]);
    expect(log.main.capacity).toBe(3);
    expect(log.console.capacity).toBe(4);
    log.clear();
    expect(log.list()).toEqual([]);
  });
});
