import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  applyPatch,
  buildPatch,
  equalUnder,
  isObject,
  nameKey,
  PatchError,
  termKey,
  type Json,
  type JsonObject,
  type PatchRules,
} from "../../api/patch/index.js";
import { patchRules } from "../../api/kinds/index.js";

const policyRules = patchRules.policy as PatchRules;
const groupRules = patchRules.group as PatchRules;
const defaultRules = patchRules.volumeset as PatchRules;
const RUNS = { numRuns: 200 };

function policy(): JsonObject {
  return {
    name: "p",
    description: "d",
    tags: { team: "a", "cpln/x": "1" },
    targetKind: "volumeset",
    targetLinks: ["/org/o/gvc/g/volumeset/a", "/org/o/gvc/g/volumeset/b"],
    targetQuery: {
      kind: "volumeset",
      spec: {
        match: "all",
        terms: [
          { property: "name", op: "~", value: "data" },
          { tag: "env", value: "prod" },
        ],
      },
    },
    bindings: [
      { permissions: ["view", "edit"], principalLinks: ["/org/o/user/u1"] },
      { permissions: ["manage"], principalLinks: ["/org/o/group/admins", "/org/o/user/u2"] },
    ],
  };
}

function catchPatchError(run: () => unknown): PatchError {
  try {
    run();
  } catch (error) {
    if (error instanceof PatchError) return error;
    throw error;
  }
  throw new Error("expected a PatchError");
}

function applyPolicy(patch: JsonObject, record = policy()): JsonObject {
  return applyPatch(record, patch, policyRules);
}

function bindings(record: JsonObject): JsonObject[] {
  return record.bindings as JsonObject[];
}

describe("applyPatch: each directive", () => {
  it("$drop removes the named fields and ignores absent ones", () => {
    const out = applyPolicy({ $drop: ["description", "targetQuery", "nothing"] });
    expect(out).not.toHaveProperty("description");
    expect(out).not.toHaveProperty("targetQuery");
    expect(out.name).toBe("p");
  });

  it("$replace/<field> replaces wholesale, and null removes the field", () => {
    expect(applyPolicy({ "$replace/tags": { owner: "me" } }).tags).toEqual({ owner: "me" });
    expect(applyPolicy({ "$replace/targetQuery": null })).not.toHaveProperty("targetQuery");
  });

  it("plain fields deep-merge objects, remove on null, and replace arrays and scalars", () => {
    const out = applyPolicy({
      description: "new",
      tags: { team: null, owner: "me" },
      targetQuery: { spec: { match: "any" } },
      targetLinks: ["/org/o/gvc/g/volumeset/c"],
    });
    expect(out.description).toBe("new");
    expect(out.tags).toEqual({ "cpln/x": "1", owner: "me" });
    expect((out.targetQuery as JsonObject).spec).toEqual({
      ...((policy().targetQuery as JsonObject).spec as JsonObject),
      match: "any",
    });
    expect(out.targetLinks).toEqual(["/org/o/gvc/g/volumeset/c"]);
  });

  it("a plain object merged into an absent or scalar field starts from an empty object and drops nulls", () => {
    expect(applyPatch({ a: 1 }, { a: { x: 1, y: null }, b: { z: { w: 2 } } }, defaultRules)).toEqual({
      a: { x: 1 },
      b: { z: { w: 2 } },
    });
  });

  it("$drop/<array> removes items by key: scalars by value", () => {
    expect(applyPolicy({ "$drop/targetLinks": ["/org/o/gvc/g/volumeset/a", "/nope"] }).targetLinks).toEqual([
      "/org/o/gvc/g/volumeset/b",
    ]);
    expect(applyPatch({ ports: [80, 443] }, { "$drop/ports": [80] }, defaultRules).ports).toEqual([443]);
    expect(applyPatch({ ports: [80, 443] }, { "$drop/ports": ["443"] }, defaultRules).ports).toEqual([80]);
  });

  it("$drop/<array> removes object items by name", () => {
    const account: JsonObject = { name: "sa", keys: [{ name: "k1", description: "a" }, { name: "k2" }] };
    expect(applyPatch(account, { "$drop/keys": ["k1"] }, patchRules.serviceaccount as PatchRules).keys).toEqual([
      { name: "k2" },
    ]);
  });

  it("$drop/bindings names a binding by its sorted permission set", () => {
    expect(bindings(applyPolicy({ "$drop/bindings": ["edit,view"] }))).toEqual([bindings(policy())[1]]);
  });

  it("$drop/terms names a term by property, rel or tag", () => {
    const record: JsonObject = {
      spec: {
        terms: [{ property: "name", value: 1 }, { rel: "gvc", value: "g" }, { tag: "env" }, { tag: "name" }],
      },
    };
    const rules: PatchRules = { arrays: { "spec.terms": patchRules.policy!.arrays["targetQuery.spec.terms"]! } };
    const out = applyPatch(record, { spec: { "$drop/terms": ["rel:gvc", "tag:name"] } }, rules);
    expect((out.spec as JsonObject).terms).toEqual([{ property: "name", value: 1 }, { tag: "env" }]);
  });

  it("$drop/<array> and $retain/<array> on an absent field leave it absent", () => {
    expect(applyPolicy({ "$drop/targetLinks": ["x"], "$retain/other": [] }, { name: "p" })).toEqual({ name: "p" });
  });

  it("$retain/<array> keeps only the items with the listed keys", () => {
    expect(applyPolicy({ "$retain/bindings": ["manage"] }).bindings).toEqual([bindings(policy())[1]]);
    expect(applyPolicy({ "$retain/targetLinks": [] }).targetLinks).toEqual([]);
  });

  it("$patch/<array> merges a partial into the item with the same key, leaving the others alone", () => {
    const out = applyPolicy({
      "$patch/bindings": [{ permissions: ["edit", "view"], "$append/principalLinks": ["/org/o/user/u3"] }],
    });
    expect(bindings(out)[0]).toEqual({
      permissions: ["edit", "view"],
      principalLinks: ["/org/o/user/u1", "/org/o/user/u3"],
    });
    expect(bindings(out)[1]).toEqual(bindings(policy())[1]);
  });

  it("$patch/<array> finds a binding whatever the order of the permissions in the partial", () => {
    const out = applyPolicy({ "$patch/bindings": [{ permissions: ["view", "edit"], $drop: ["principalLinks"] }] });
    expect(bindings(out)).toEqual([{ permissions: ["view", "edit"] }, bindings(policy())[1]]);
  });

  it("$patch/<array> appends a partial that matches no item, applying its directives to an empty item", () => {
    const out = applyPolicy({
      "$patch/bindings": [{ permissions: ["delete"], "$append/principalLinks": ["/org/o/user/u9"], note: null }],
    });
    expect(bindings(out)[2]).toEqual({ permissions: ["delete"], principalLinks: ["/org/o/user/u9"] });
    expect(applyPatch({}, { "$patch/xs": [{ name: "a" }] }, defaultRules)).toEqual({ xs: [{ name: "a" }] });
  });

  it("$patch/<array> nests: directives inside items of items (named arrays keyed by name)", () => {
    const workload: JsonObject = {
      spec: {
        containers: [
          {
            name: "c1",
            image: "a",
            env: [
              { name: "FOO", value: "1" },
              { name: "OLD", value: "x" },
            ],
          },
          { name: "c2", image: "b" },
        ],
      },
    };
    const out = applyPatch(
      workload,
      {
        spec: {
          "$patch/containers": [
            { name: "c1", image: "nginx", "$patch/env": [{ name: "FOO", value: "2" }], "$drop/env": ["OLD"] },
          ],
        },
      },
      defaultRules,
    );
    expect((out.spec as JsonObject).containers).toEqual([
      { name: "c1", image: "nginx", env: [{ name: "FOO", value: "2" }] },
      { name: "c2", image: "b" },
    ]);
  });

  it("$patch/terms inside targetQuery.spec replaces a term's value by selector", () => {
    const out = applyPolicy({ targetQuery: { spec: { "$patch/terms": [{ tag: "env", "$replace/value": "dev" }] } } });
    expect(((out.targetQuery as JsonObject).spec as JsonObject).terms).toEqual([
      { property: "name", op: "~", value: "data" },
      { tag: "env", value: "dev" },
    ]);
  });

  it("$append/<array> appends items, creating an absent array, also inside targetQuery.spec", () => {
    expect(applyPolicy({ "$append/targetLinks": ["/x"] }).targetLinks).toEqual([
      ...(policy().targetLinks as string[]),
      "/x",
    ]);
    expect(applyPolicy({ "$append/targetLinks": ["/x"] }, { name: "p" })).toEqual({ name: "p", targetLinks: ["/x"] });
    const out = applyPolicy({ targetQuery: { spec: { "$append/terms": [{ rel: "gvc", value: "g" }] } } });
    expect(((out.targetQuery as JsonObject).spec as JsonObject).terms).toHaveLength(3);
    expect(applyPolicy({ targetQuery: { spec: { "$append/terms": [{ rel: "gvc" }] } } }, { name: "p" })).toEqual({
      name: "p",
      targetQuery: { spec: { terms: [{ rel: "gvc" }] } },
    });
  });

  it("$append/<array> appends unkeyed object items without a duplicate check", () => {
    const cluster = { firewall: [{ sourceCIDR: "0.0.0.0/0" }] };
    expect(
      applyPatch(cluster, { "$append/firewall": [{ sourceCIDR: "0.0.0.0/0" }] }, defaultRules).firewall,
    ).toHaveLength(2);
  });
});

describe("applyPatch: order of application", () => {
  it("$drop applies before plain fields", () => {
    expect(applyPolicy({ tags: { a: "1" }, $drop: ["tags"] }).tags).toEqual({ a: "1" });
  });

  it("$replace/ applies before plain fields", () => {
    expect(applyPolicy({ tags: { b: "2" }, "$replace/tags": { a: "1" } }).tags).toEqual({ a: "1", b: "2" });
  });

  it("plain fields apply before $drop/ and $append/", () => {
    const out = applyPolicy({ "$append/targetLinks": ["/y"], "$drop/targetLinks": ["/x"], targetLinks: ["/x", "/z"] });
    expect(out.targetLinks).toEqual(["/z", "/y"]);
  });

  it("$drop/ applies before $append/, so an item can be dropped and re-added at the end", () => {
    const out = applyPolicy({
      "$append/targetLinks": ["/org/o/gvc/g/volumeset/a"],
      "$drop/targetLinks": ["/org/o/gvc/g/volumeset/a"],
    });
    expect(out.targetLinks).toEqual(["/org/o/gvc/g/volumeset/b", "/org/o/gvc/g/volumeset/a"]);
  });

  it("$retain/ applies after $drop/ and before $patch/", () => {
    const out = applyPatch(
      { xs: [{ name: "a" }, { name: "b" }, { name: "c" }] },
      { "$patch/xs": [{ name: "a", v: 1 }], "$retain/xs": ["a", "b"], "$drop/xs": ["b"] },
      defaultRules,
    );
    expect(out.xs).toEqual([{ name: "a", v: 1 }]);
  });

  it("$patch/ applies before $append/: an upserted item makes a later append of the same key a duplicate", () => {
    const error = catchPatchError(() =>
      applyPatch({}, { "$append/xs": [{ name: "a" }], "$patch/xs": [{ name: "a" }] }, defaultRules),
    );
    expect(error.path).toBe("$append/xs[0]");
  });
});

describe("applyPatch: errors carry the path of the offending directive", () => {
  it("an unknown directive", () => {
    expect(catchPatchError(() => applyPolicy({ "$merge/tags": {} })).path).toBe("$merge/tags");
    expect(catchPatchError(() => applyPolicy({ "$append/": [] })).path).toBe("$append/");
    expect(catchPatchError(() => applyPolicy({ targetQuery: { spec: { $bogus: 1 } } })).path).toBe(
      "targetQuery.spec.$bogus",
    );
  });

  it("an array directive on a field that is not an array", () => {
    const error = catchPatchError(() => applyPolicy({ "$append/description": ["x"] }));
    expect(error.path).toBe("$append/description");
    expect(error.message).toBe(`$append/description: "description" is not an array, so it takes no array directive`);
  });

  it("a directive value of the wrong type", () => {
    expect(catchPatchError(() => applyPolicy({ $drop: "tags" })).path).toBe("$drop");
    expect(catchPatchError(() => applyPolicy({ $drop: ["tags", 1] })).path).toBe("$drop");
    expect(catchPatchError(() => applyPolicy({ "$drop/targetLinks": "/x" })).path).toBe("$drop/targetLinks");
    expect(catchPatchError(() => applyPolicy({ "$retain/bindings": [{ permissions: ["view"] }] })).path).toBe(
      "$retain/bindings",
    );
    expect(catchPatchError(() => applyPolicy({ "$patch/bindings": {} })).path).toBe("$patch/bindings");
    expect(catchPatchError(() => applyPolicy({ targetQuery: { spec: { "$drop/terms": "tag:env" } } })).path).toBe(
      "targetQuery.spec.$drop/terms",
    );
  });

  it("$append of an item whose key exists, also nested in a $patch/ item", () => {
    expect(
      catchPatchError(() => applyPolicy({ "$append/targetLinks": ["/new", "/org/o/gvc/g/volumeset/b"] })).path,
    ).toBe("$append/targetLinks[1]");
    expect(catchPatchError(() => applyPolicy({ "$append/bindings": [{ permissions: ["manage"] }] })).path).toBe(
      "$append/bindings[0]",
    );
    const nested = catchPatchError(() =>
      applyPolicy({ "$patch/bindings": [{ permissions: ["manage"], "$append/principalLinks": ["/org/o/user/u2"] }] }),
    );
    expect(nested.path).toBe("$patch/bindings[0].$append/principalLinks[0]");
  });

  it("a $patch/ partial without its key fields", () => {
    const error = catchPatchError(() =>
      applyPolicy({ "$patch/bindings": [{ permissions: ["view", "edit"] }, { principalLinks: ["/x"] }] }),
    );
    expect(error.path).toBe("$patch/bindings[1]");
    expect(error.reason).toBe("a $patch item must carry its key field (permissions)");
    expect(catchPatchError(() => applyPolicy({ targetQuery: { spec: { "$patch/terms": [{ value: 1 }] } } })).path).toBe(
      "targetQuery.spec.$patch/terms[0]",
    );
  });

  it("a $patch/ that leaves two items with the same key", () => {
    const error = catchPatchError(() =>
      applyPolicy({
        "$patch/bindings": [
          { permissions: ["view", "edit"], "$drop/permissions": ["view", "edit"], "$append/permissions": ["manage"] },
        ],
      }),
    );
    expect(error.path).toBe("$patch/bindings[0]");
    expect(error.reason).toContain(`"manage" duplicates another item of "bindings"`);
  });

  it("a keyed directive on an object array that has no key rule and no name", () => {
    const cluster = { firewall: [{ sourceCIDR: "0.0.0.0/0" }] };
    const error = catchPatchError(() => applyPatch(cluster, { "$drop/firewall": ["0.0.0.0/0"] }, defaultRules));
    expect(error.path).toBe("$drop/firewall");
    expect(error.reason).toContain(`no key rule`);
    expect(catchPatchError(() => applyPatch(cluster, { "$patch/firewall": [{ name: "x" }] }, defaultRules)).path).toBe(
      "$patch/firewall",
    );
  });

  it("a directive inside a value that replaces or is appended (it would be stored as a field)", () => {
    const plain = catchPatchError(() =>
      applyPolicy({ bindings: [{ permissions: ["view"], "$append/principalLinks": ["/x"] }] }),
    );
    expect(plain.path).toBe("bindings[0].$append/principalLinks");
    expect(
      catchPatchError(() => applyPolicy({ "$append/bindings": [{ permissions: ["create"], $drop: [] }] })).path,
    ).toBe("$append/bindings[0].$drop");
    expect(catchPatchError(() => applyPolicy({ "$replace/targetQuery": { spec: { "$append/terms": [] } } })).path).toBe(
      "$replace/targetQuery.spec.$append/terms",
    );
  });

  it("a failed patch leaves the record unchanged", () => {
    const record = policy();
    catchPatchError(() =>
      applyPolicy({ description: "changed", "$append/targetLinks": ["/org/o/gvc/g/volumeset/a"] }, record),
    );
    expect(record).toEqual(policy());
  });
});

describe("applyPatch: safety", () => {
  it("never mutates the record or the patch, and the result shares no objects with them", () => {
    const record = policy();
    const patch: JsonObject = {
      tags: { team: "b" },
      "$patch/bindings": [{ permissions: ["manage"], "$append/principalLinks": ["/org/o/user/u3"] }],
      targetLinks: ["/a"],
    };
    const out = applyPatch(record, patch, policyRules);
    expect(record).toEqual(policy());
    expect(patch).toEqual({
      tags: { team: "b" },
      "$patch/bindings": [{ permissions: ["manage"], "$append/principalLinks": ["/org/o/user/u3"] }],
      targetLinks: ["/a"],
    });
    (out.targetLinks as string[]).push("/b");
    (bindings(out)[0]!.principalLinks as string[]).push("/z");
    expect(patch.targetLinks).toEqual(["/a"]);
    expect(record).toEqual(policy());
  });

  it("treats __proto__ and constructor as ordinary field names (no prototype pollution)", () => {
    const patch = JSON.parse(
      '{"__proto__": {"polluted": true}, "constructor": {"x": 1}, "tags": {"__proto__": {"y": 1}}}',
    ) as JsonObject;
    const out = applyPatch({ tags: {} }, patch, defaultRules);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.keys(out).sort()).toEqual(["__proto__", "constructor", "tags"]);
    expect(Object.hasOwn(out.tags as JsonObject, "__proto__")).toBe(true);
  });
});

describe("equalUnder", () => {
  it("compares unordered arrays (bindings, permissions, links) as multisets and others in order", () => {
    const shuffled = policy();
    shuffled.bindings = [
      { principalLinks: ["/org/o/user/u2", "/org/o/group/admins"], permissions: ["manage"] },
      { permissions: ["edit", "view"], principalLinks: ["/org/o/user/u1"] },
    ];
    shuffled.targetLinks = [...(policy().targetLinks as string[])].reverse();
    expect(equalUnder(policy(), shuffled, policyRules)).toBe(true);
    expect(equalUnder({ targetLinks: ["a", "a", "b"] }, { targetLinks: ["a", "b", "b"] }, policyRules)).toBe(false);
    const terms = (policy().targetQuery as JsonObject).spec as JsonObject;
    expect(
      equalUnder(
        { targetQuery: { spec: terms } },
        { targetQuery: { spec: { ...terms, terms: [...(terms.terms as Json[])].reverse() } } },
        policyRules,
      ),
    ).toBe(false);
    expect(equalUnder({ xs: [1, 2] }, { xs: [2, 1] }, defaultRules)).toBe(false);
  });

  it("treats a null field as absent but distinguishes types", () => {
    expect(equalUnder({ a: 1, b: null }, { a: 1 }, defaultRules)).toBe(true);
    expect(equalUnder({ a: 1 }, { a: "1" }, defaultRules)).toBe(false);
    expect(equalUnder({ a: [] }, { a: {} }, defaultRules)).toBe(false);
    expect(equalUnder([null], [], defaultRules)).toBe(false);
  });
});

describe("buildPatch", () => {
  it("is {} when nothing changed, including reordered sets", () => {
    const shuffled = policy();
    shuffled.bindings = [...bindings(policy())].reverse();
    shuffled.targetLinks = [...(policy().targetLinks as string[])].reverse();
    expect(buildPatch(policy(), policy(), policyRules)).toEqual({});
    expect(buildPatch(policy(), shuffled, policyRules)).toEqual({});
  });

  it("removes one field with null and several with $drop", () => {
    const { description: _d, ...withoutDescription } = policy();
    expect(buildPatch(policy(), withoutDescription, policyRules)).toEqual({ description: null });
    const { description: _e, targetQuery: _q, ...withoutTwo } = policy();
    expect(buildPatch(policy(), withoutTwo, policyRules)).toEqual({ $drop: ["description", "targetQuery"] });
  });

  it("diffs nested objects field by field", () => {
    const desired = { ...policy(), tags: { team: "b", "cpln/x": "1", owner: "me" } };
    expect(buildPatch(policy(), desired, policyRules)).toEqual({ tags: { team: "b", owner: "me" } });
  });

  it("uses $drop/ and $append/ for a set of links", () => {
    const desired = { ...policy(), targetLinks: ["/org/o/gvc/g/volumeset/c", "/org/o/gvc/g/volumeset/b"] };
    expect(buildPatch(policy(), desired, policyRules)).toEqual({
      "$drop/targetLinks": ["/org/o/gvc/g/volumeset/a"],
      "$append/targetLinks": ["/org/o/gvc/g/volumeset/c"],
    });
  });

  it("changes one binding with exactly one $patch/bindings entry", () => {
    const desired = policy();
    bindings(desired)[1] = { permissions: ["manage"], principalLinks: ["/org/o/group/admins", "/org/o/user/u3"] };
    expect(buildPatch(policy(), desired, policyRules)).toEqual({
      "$patch/bindings": [
        {
          permissions: ["manage"],
          "$drop/principalLinks": ["/org/o/user/u2"],
          "$append/principalLinks": ["/org/o/user/u3"],
        },
      ],
    });
  });

  it("drops and appends a binding whose permission set changed", () => {
    const desired = policy();
    bindings(desired)[0] = { permissions: ["view"], principalLinks: ["/org/o/user/u1"] };
    expect(buildPatch(policy(), desired, policyRules)).toEqual({
      "$drop/bindings": ["edit,view"],
      "$append/bindings": [{ permissions: ["view"], principalLinks: ["/org/o/user/u1"] }],
    });
  });

  it("patches a query term by its selector inside targetQuery.spec", () => {
    const desired = policy();
    (((desired.targetQuery as JsonObject).spec as JsonObject).terms as JsonObject[])[1]!.value = "dev";
    expect(buildPatch(policy(), desired, policyRules)).toEqual({
      targetQuery: { spec: { "$patch/terms": [{ tag: "env", value: "dev" }] } },
    });
  });

  it("keeps ordered arrays ordered: directives when reachable, a replacement otherwise", () => {
    expect(buildPatch({ xs: ["a", "b", "c"] }, { xs: ["a", "c", "d"] }, defaultRules)).toEqual({
      "$drop/xs": ["b"],
      "$append/xs": ["d"],
    });
    expect(buildPatch({ xs: ["a", "b"] }, { xs: ["b", "a"] }, defaultRules)).toEqual({ xs: ["b", "a"] });
    expect(buildPatch({ xs: ["a", "b"] }, { xs: ["c", "a", "b"] }, defaultRules)).toEqual({ xs: ["c", "a", "b"] });
  });

  it("replaces an array whose items have duplicate keys or no keys", () => {
    expect(buildPatch({ xs: ["a"] }, { xs: ["a", "a"] }, defaultRules)).toEqual({ xs: ["a", "a"] });
    expect(buildPatch({ fw: [{ cidr: "a" }] }, { fw: [{ cidr: "a" }, { cidr: "b" }] }, defaultRules)).toEqual({
      fw: [{ cidr: "a" }, { cidr: "b" }],
    });
  });

  it("patches named items with their name and a nested body", () => {
    const old: JsonObject = {
      spec: {
        env: [
          { name: "A", value: "1" },
          { name: "B", value: "2", secret: true },
        ],
      },
    };
    const desired = {
      spec: {
        env: [
          { name: "A", value: "1" },
          { name: "B", value: "3" },
        ],
      },
    };
    expect(buildPatch(old, desired, defaultRules)).toEqual({
      spec: { "$patch/env": [{ name: "B", secret: null, value: "3" }] },
    });
  });

  it("group memberLinks are a set", () => {
    const old = { name: "g", memberLinks: ["/org/o/user/a", "/org/o/user/b"] };
    expect(buildPatch(old, { name: "g", memberLinks: ["/org/o/user/b", "/org/o/user/c"] }, groupRules)).toEqual({
      "$drop/memberLinks": ["/org/o/user/a"],
      "$append/memberLinks": ["/org/o/user/c"],
    });
  });
});

// ---- properties --------------------------------------------------------------------------------------------

const word = fc.constantFrom("a", "b", "c", "d", "e", "f");
const link = fc.constantFrom(
  ...["u1", "u2", "u3", "u4", "u5"].map((u) => `/org/o/user/${u}`),
  "/org/o/group/g1",
  "/org/o/group/g2",
);
const scalar: fc.Arbitrary<Json> = fc.oneof(
  fc.string({ maxLength: 4 }),
  fc.integer({ min: -3, max: 3 }),
  fc.boolean(),
  fc.constant(null),
);
const tags = fc.dictionary(word, scalar, { maxKeys: 4 });
const nested: fc.Arbitrary<JsonObject> = fc.letrec<{ node: JsonObject }>((tie) => ({
  node: fc.dictionary(word, fc.oneof({ depthSize: "small" }, scalar, tie("node"), fc.array(scalar, { maxLength: 3 })), {
    maxKeys: 3,
  }),
})).node;
const namedItems = fc.uniqueArray(
  fc.record(
    { name: word, value: scalar, options: tags, links: fc.uniqueArray(link, { maxLength: 3 }) },
    { requiredKeys: ["name"] },
  ),
  { selector: (item) => item.name, maxLength: 4 },
);

/** A generic record: tags, nested objects, ordered and unordered scalar arrays, named and unnamed object arrays. */
const genericRecord: fc.Arbitrary<JsonObject> = fc.record(
  {
    name: word,
    description: fc.string({ maxLength: 6 }),
    tags,
    spec: nested,
    memberLinks: fc.array(link, { maxLength: 5 }),
    ordered: fc.array(fc.oneof(word, fc.integer({ min: 0, max: 3 })), { maxLength: 5 }),
    items: namedItems,
    unnamed: fc.array(fc.record({ cidr: word }), { maxLength: 3 }),
    matrix: fc.array(fc.array(fc.integer({ min: 0, max: 2 }), { maxLength: 2 }), { maxLength: 2 }),
  },
  { requiredKeys: ["name"] },
);

const permission = fc.constantFrom("view", "edit", "manage", "create", "delete");
const binding = fc.record({
  permissions: fc.uniqueArray(permission, { minLength: 1, maxLength: 3 }),
  principalLinks: fc.uniqueArray(link, { minLength: 1, maxLength: 4 }),
});
const bindingKey = (b: { permissions: string[] }) => [...b.permissions].sort().join(",");
const term: fc.Arbitrary<JsonObject> = fc.oneof(
  fc.record({ property: word, op: fc.constantFrom("=", "~", "exists"), value: scalar }, { requiredKeys: ["property"] }),
  fc.record({ rel: word, value: word }),
  fc.record({ tag: word, op: fc.constantFrom("=", "!="), value: scalar }, { requiredKeys: ["tag"] }),
);
const policyRecord: fc.Arbitrary<JsonObject> = fc.record(
  {
    name: word,
    description: fc.string({ maxLength: 6 }),
    tags,
    targetKind: fc.constant("volumeset"),
    targetLinks: fc.uniqueArray(link, { maxLength: 4 }),
    target: fc.constant("all"),
    targetQuery: fc.record(
      {
        kind: fc.constant("volumeset"),
        spec: fc.record(
          {
            match: fc.constantFrom("all", "any", "none"),
            terms: fc.uniqueArray(term, { selector: termKey, maxLength: 4 }),
          },
          { requiredKeys: ["terms"] },
        ),
      },
      { requiredKeys: ["spec"] },
    ),
    bindings: fc.uniqueArray(binding, { selector: bindingKey, maxLength: 4 }),
  },
  { requiredKeys: ["name", "bindings"] },
);

/** A random edit of a JSON value: fields and items kept, removed, edited, duplicated, reordered, or added. */
function edit(value: Json, g: fc.GeneratorValue, fresh: fc.Arbitrary<Json>): Json {
  if (Array.isArray(value)) {
    const items = value.flatMap((item): Json[] => {
      const choice = g(fc.integer, { min: 0, max: 7 });
      if (choice === 0) return [];
      if (choice <= 3) return [edit(item, g, fresh)];
      if (choice === 4) return [item, edit(item, g, fresh)];
      return [item];
    });
    if (g(fc.integer, { min: 0, max: 4 }) === 0) items.reverse();
    if (g(fc.boolean)) items.push(value.length > 0 ? edit(value[0] as Json, g, fresh) : g(() => fresh));
    return items;
  }
  if (isObject(value)) {
    const out: JsonObject = {};
    for (const [field, item] of Object.entries(value)) {
      const choice = g(fc.integer, { min: 0, max: 5 });
      if (choice === 0) continue;
      out[field] = choice === 1 ? edit(item, g, fresh) : item;
    }
    if (g(fc.integer, { min: 0, max: 3 }) === 0) out[g(() => word)] = g(() => fresh);
    return out;
  }
  return g(fc.integer, { min: 0, max: 2 }) === 0 ? g(() => fresh) : value;
}

const freshValue: fc.Arbitrary<Json> = fc.oneof(scalar, tags, fc.array(link, { maxLength: 2 }));

function pairs(records: fc.Arbitrary<JsonObject>): fc.Arbitrary<[JsonObject, JsonObject]> {
  const edited = fc
    .tuple(records, fc.gen())
    .map(([a, g]): [JsonObject, JsonObject] => [a, edit(a, g, freshValue) as JsonObject]);
  return fc.oneof(edited, edited, fc.tuple(records, records));
}

function roundTrip([a, b]: [JsonObject, JsonObject], rules: PatchRules): void {
  const before = structuredClone(a);
  const patch = buildPatch(a, b, rules);
  const patchCopy = structuredClone(patch);
  const result = applyPatch(a, patch, rules);
  expect(equalUnder(result, b, rules)).toBe(true);
  expect(a).toEqual(before);
  expect(patch).toEqual(patchCopy);
}

describe("properties", () => {
  it("applyPatch(a, buildPatch(a, b)) ≡ b for generic records (default rules)", () => {
    fc.assert(
      fc.property(pairs(genericRecord), (pair) => roundTrip(pair, defaultRules)),
      RUNS,
    );
  });

  it("applyPatch(a, buildPatch(a, b)) ≡ b for generic records under group rules (memberLinks a set)", () => {
    fc.assert(
      fc.property(pairs(genericRecord), (pair) => roundTrip(pair, groupRules)),
      RUNS,
    );
  });

  it("applyPatch(a, buildPatch(a, b)) ≡ b for policies", () => {
    fc.assert(
      fc.property(pairs(policyRecord), (pair) => roundTrip(pair, policyRules)),
      RUNS,
    );
  });

  it("buildPatch(a, a) is {} (also for a copy with sets reordered)", () => {
    fc.assert(
      fc.property(policyRecord, genericRecord, (p, r) => {
        const reordered = structuredClone(p);
        reordered.bindings = bindings(reordered)
          .map((b) => ({ ...b, principalLinks: [...(b.principalLinks as string[])].reverse() }))
          .reverse();
        expect(buildPatch(p, p, policyRules)).toEqual({});
        expect(buildPatch(p, reordered, policyRules)).toEqual({});
        expect(buildPatch(r, structuredClone(r), defaultRules)).toEqual({});
      }),
      RUNS,
    );
  });

  it("a patch for one binding keeps a concurrent $append/principalLinks to another binding", () => {
    const scenario = policyRecord
      .filter((p) => bindings(p).length >= 2)
      .chain((p) =>
        fc.record({
          p: fc.constant(p),
          a: fc.nat({ max: bindings(p).length - 1 }),
          offset: fc.integer({ min: 1, max: bindings(p).length - 1 }),
          change: fc.constantFrom("addPrincipal", "removePrincipal", "permissions", "dropBinding"),
          principal: link,
          permissions: fc.uniqueArray(permission, { minLength: 1, maxLength: 3 }),
          extra: fc.constantFrom("/org/o/serviceaccount/s1", "/org/o/serviceaccount/s2"),
        }),
      );
    fc.assert(
      fc.property(scenario, ({ p, a, offset, change, principal, permissions, extra }) => {
        const b = (a + offset) % bindings(p).length;
        const q = structuredClone(p);
        const changed = bindings(q)[a]!;
        const links = changed.principalLinks as string[];
        if (change === "addPrincipal" && !links.includes(principal)) links.push(principal);
        if (change === "removePrincipal") links.splice(0, 1);
        if (
          change === "permissions" &&
          !bindings(q).some((x) => bindingKey(x as { permissions: string[] }) === bindingKey({ permissions }))
        ) {
          changed.permissions = permissions;
        }
        if (change === "dropBinding") bindings(q).splice(a, 1);
        // Someone else appends a principal to binding B meanwhile.
        const r = applyPatch(
          p,
          { "$patch/bindings": [{ permissions: bindings(p)[b]!.permissions!, "$append/principalLinks": [extra] }] },
          policyRules,
        );

        const patch = buildPatch(p, q, policyRules);
        expect(patch).not.toHaveProperty("bindings"); // never a whole-array replacement
        const merged = applyPatch(r, patch, policyRules);
        const expected = structuredClone(q);
        const bInQ = bindings(expected).find(
          (x) => bindingKey(x as { permissions: string[] }) === bindingKey(bindings(p)[b] as { permissions: string[] }),
        )!;
        (bInQ.principalLinks as string[]).push(extra);
        expect(equalUnder(merged, expected, policyRules)).toBe(true);
      }),
      RUNS,
    );
  });
});

describe("applyPatch with shareUntouched", () => {
  const frozen = <T>(value: T): T => {
    if (typeof value === "object" && value !== null) {
      for (const child of Object.values(value)) frozen(child);
      Object.freeze(value);
    }
    return value;
  };

  it("keeps the record's own values of unnamed fields, copies the named ones, and gives the same result as a full copy", () => {
    const record = frozen({
      name: "vs",
      tags: { a: "1", b: "2" },
      spec: { initialCapacity: 10, fs: "ext4" },
      links: [{ rel: "self", href: "/x" }],
    }) as JsonObject;
    const patch: JsonObject = { tags: { b: null, c: "3" }, $drop: ["links"] };
    const shared = applyPatch(record, patch, defaultRules, { shareUntouched: true });
    expect(shared).toEqual(applyPatch(record, patch, defaultRules));
    expect(shared).toEqual({ name: "vs", tags: { a: "1", c: "3" }, spec: { initialCapacity: 10, fs: "ext4" } });
    expect(shared["spec"]).toBe(record["spec"]);
    expect(shared["tags"]).not.toBe(record["tags"]);
    expect(record).toEqual({
      name: "vs",
      tags: { a: "1", b: "2" },
      spec: { initialCapacity: 10, fs: "ext4" },
      links: [{ rel: "self", href: "/x" }],
    });
  });

  it("copies a field named by a directive before editing it", () => {
    const rules: PatchRules = { arrays: { items: { key: nameKey, keyFields: ["name"], ordered: true } } };
    const record = frozen({ items: [{ name: "a", v: 1 }], other: { x: 1 } }) as JsonObject;
    const result = applyPatch(record, { "$append/items": [{ name: "b", v: 2 }] }, rules, { shareUntouched: true });
    expect(result["items"]).toEqual([
      { name: "a", v: 1 },
      { name: "b", v: 2 },
    ]);
    expect(result["other"]).toBe(record["other"]);
    expect(record["items"]).toEqual([{ name: "a", v: 1 }]);
  });
});
