import { afterEach, describe, expect, it, vi } from "vitest";
import { nowIso } from "../../server/domain/common.js";

describe("nowIso", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("is the current time's toISOString, to the millisecond, as the clock moves", () => {
    vi.useFakeTimers();
    const start = Date.UTC(2026, 10, 27, 3, 59, 59, 998);
    for (const ms of [0, 0, 1, 2, 2, 1_000, 86_400_000]) {
      vi.setSystemTime(start + ms);
      expect(nowIso()).toBe(new Date(start + ms).toISOString());
    }
    // A clock set back (NTP) is followed too.
    vi.setSystemTime(start - 5);
    expect(nowIso()).toBe(new Date(start - 5).toISOString());
  });

  it("on the real clock lies between the times read before and after it", () => {
    const before = Date.now();
    const at = Date.parse(nowIso());
    expect(at).toBeGreaterThanOrEqual(before);
    expect(at).toBeLessThanOrEqual(Date.now());
  });
});
