import { afterEach, describe, expect, it, vi } from "vitest";
import { nowIso } from "../../server/domain/common.js";

describe("nowIso", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("is the current time's toISOString, to the millisecond, as the clock moves (within a second, across seconds and days, backwards)", () => {
    vi.useFakeTimers();
    const start = Date.UTC(2026, 10, 27, 3, 59, 59, 998);
    for (const ms of [0, 0, 1, 2, 2, 1_000, 86_400_000]) {
      vi.setSystemTime(start + ms);
      expect(nowIso()).toBe(new Date(start + ms).toISOString());
    }
    // A clock set back (NTP) is followed too; so are times toISOString writes in other forms.
    for (const at of [start - 5, -1, -1_001, Date.UTC(10_000, 0, 1, 0, 0, 0, 7), Date.UTC(10_000, 0, 1, 0, 0, 0, 8)]) {
      vi.setSystemTime(at);
      expect(nowIso()).toBe(new Date(at).toISOString());
    }
  });

  it("on the real clock lies between the times read before and after it", () => {
    const before = Date.now();
    const at = Date.parse(nowIso());
    expect(at).toBeGreaterThanOrEqual(before);
    expect(at).toBeLessThanOrEqual(Date.now());
  });
});
