// The detailed-diff paths the native plugin reports, in Pulumi's property-path syntax. Needs `npm run build`.
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import type * as DetailedDiffModule from "../../provider/native/detailedDiff.js";

const { propertyDiffs } = createRequire(__filename)(
  "../../dist/provider/native/detailedDiff.js",
) as typeof DetailedDiffModule;
const named = (pairs: [string, number][]) =>
  pairs.map(([path, kind]) => [
    path,
    ["ADD", "ADD_REPLACE", "DELETE", "DELETE_REPLACE", "UPDATE", "UPDATE_REPLACE"][kind],
  ]);

describe("propertyDiffs", () => {
  it("descends objects key by key and arrays of equal length element by element", () => {
    const before = { maxCapacity: 100, predictive: { enabled: true } };
    const after = { maxCapacity: 200, minFreePercentage: 10 };
    expect(named(propertyDiffs("autoscaling", before, after))).toEqual([
      ["autoscaling.maxCapacity", "UPDATE"],
      ["autoscaling.minFreePercentage", "ADD"],
      ["autoscaling.predictive", "DELETE"],
    ]);
    const bindings = [{ permissions: ["view"] }, { permissions: ["edit"] }];
    const edited = [{ permissions: ["view"] }, { permissions: ["edit", "view"] }];
    expect(named(propertyDiffs("bindings", bindings, edited))).toEqual([["bindings[1].permissions", "UPDATE"]]);
  });

  it("quotes keys that are not identifiers, and reports a resized array as one UPDATE", () => {
    expect(named(propertyDiffs("tags", { "team.name": "a" }, { "team.name": "b" }))).toEqual([
      ['tags["team.name"]', "UPDATE"],
    ]);
    expect(named(propertyDiffs("targetLinks", ["a"], ["a", "b"]))).toEqual([["targetLinks", "UPDATE"]]);
    expect(propertyDiffs("name", "x", "x")).toEqual([]);
  });
});
