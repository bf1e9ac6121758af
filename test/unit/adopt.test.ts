// Issue 21 item 4: what an adopting create tells the user before it changes anything — the PATCH described change by
// change (api/patch/describe.ts), the notice's one format (provider/adoptNotice.ts) — and that the README, the docs
// and the existing-resources example name the same kinds as the ones whose args take `adopt`.
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { describePatch, formatPatchChange } from "../../api/patch/index.js";
import { bindingSet, valueSet } from "../../api/patch/rules.js";
import { formatAdoptionNotice } from "../../provider/adoptNotice.js";
import { resources } from "../../provider/index.js";
import type { AnyResourceDefinition } from "../../provider/resources/types.js";

const repoRoot = path.resolve(__dirname, "..", "..");
const read = (file: string): string => fs.readFileSync(path.join(repoRoot, file), "utf8");
const describeBody = (body: object, rules = { arrays: {} }) =>
  describePatch(body as never, rules).map(formatPatchChange);

describe("describePatch", () => {
  it("plain fields: set, null removes, objects are descended; odd keys are quoted", () => {
    expect(
      describeBody({
        description: "x",
        tags: { owner: null, team: "data", "cpln/city": null },
        spec: { initialCapacity: 20 },
      }),
    ).toEqual([
      "description (set)",
      "tags.owner (remove)",
      "tags.team (set)",
      'tags["cpln/city"] (remove)',
      "spec.initialCapacity (set)",
    ]);
  });

  it("directives: $drop, $replace, $drop/, $append/, $retain/ and $patch/ items named by their keys", () => {
    const rules = { arrays: { bindings: bindingSet, "bindings.principalLinks": valueSet, targetLinks: valueSet } };
    expect(
      describeBody(
        {
          $drop: ["gvc", "target"],
          "$replace/targetQuery": null,
          "$replace/spec": { a: 1 },
          "$drop/bindings": ["edit"],
          "$append/targetLinks": ["/org/o/gvc/a"],
          "$retain/memberLinks": ["//group/x", "//group/y"],
          "$patch/bindings": [{ permissions: ["view", "create"], "$append/principalLinks": ["//group/devs"] }],
        },
        rules,
      ),
    ).toEqual([
      "gvc (remove)",
      "target (remove)",
      "targetQuery (remove)",
      "spec (replace)",
      "bindings[edit] (remove)",
      "targetLinks[/org/o/gvc/a] (add)",
      "memberLinks (keep only //group/x, //group/y)",
      "bindings[create,view].principalLinks[//group/devs] (add)",
    ]);
  });

  it("an empty patch changes nothing", () => {
    expect(describeBody({})).toEqual([]);
  });
});

describe("the adoption notice", () => {
  it("names the object, what the adopting PATCH changes and what is not known yet", () => {
    const link = "/org/acme/gvc/default/volumeset/legacy";
    const text = formatAdoptionNotice({ link, changes: ["tags.owner (remove)"], unknown: ["targetLinks"] });
    expect(text).toBe(
      `adopting ${link} (it exists): the adopting PATCH changes tags.owner (remove); ` +
        "not known until the update: targetLinks",
    );
    expect(formatAdoptionNotice({ link, changes: [], unknown: [] })).toBe(
      `adopting ${link} (it exists): it matches the inputs: no PATCH`,
    );
  });
});

describe("which kinds adopt: the code, README, docs and the example agree", () => {
  const adopting = Object.values(resources)
    .filter((definition) => "adopt" in definition.fields)
    .map((definition) => definition.typeName)
    .sort();
  const others = Object.values(resources)
    .filter((definition) => !("adopt" in definition.fields))
    .map((definition) => definition.typeName)
    .sort();
  /** The kinds named in the parentheses after the first `marker` of a text: "(every resource except A, B)". */
  const exceptions = (text: string, marker: string): string[] => {
    const at = text.indexOf(marker);
    expect(at, marker).toBeGreaterThanOrEqual(0);
    const list = /every resource except ([A-Za-z, ]*[A-Za-z])/.exec(text.slice(at, at + 200))?.[1] ?? "";
    return list
      .split(",")
      .map((kind) => kind.trim())
      .sort();
  };

  it("every kind with an adopt input also has an adoption (link and PATCH), and only those", () => {
    const withAdoption = (Object.values(resources) as AnyResourceDefinition[])
      .filter((definition) => definition.adoption !== undefined)
      .map((definition) => definition.typeName)
      .sort();
    expect(withAdoption).toEqual(adopting);
  });

  it("README, docs/resources.md and docs/limitations.md name exactly the other kinds as the exceptions", () => {
    expect(others.length).toBeGreaterThan(0);
    expect(exceptions(read("README.md"), "**`adopt: true`**")).toEqual(others);
    expect(exceptions(read("docs/resources.md"), "`adopt: true` (")).toEqual(others);
    expect(exceptions(read("docs/limitations.md"), "`adopt: true` (")).toEqual(others);
  });

  it("the existing-resources example names the same exceptions", () => {
    expect(exceptions(read("examples/existing-resources/README.md"), "every resource except")).toEqual(others);
  });
});
