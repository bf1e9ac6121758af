// Location through Pulumi's real dynamic-provider host against cpln-local: adopt (GET + PATCH), no-op, updates,
// drift, a missing location, replace (restore the old one, adopt the new one), delete (restore the originals).
// Needs `npm run build`.
import { describe, expect, it } from "vitest";
import type { LocationArgs } from "../../sdk/index.js";
import {
  harness,
  inputsOf,
  programInputs,
  ResourceStack,
  sdk,
  serverRecord,
  stable,
  takeRequests,
  withEnv,
  type Env,
  type PropertyMap,
} from "./support.js";

const TYPE = "pulumi-nodejs:dynamic/cpln:Location";

let env: Env;
let org = "";
withEnv((started) => {
  env = started;
  org = started.server.org;
});

function locationInputs(args: LocationArgs): Promise<PropertyMap> {
  return inputsOf(TYPE, () => new sdk.Location("frankfurt", args));
}

describe("Location lifecycle", () => {
  let location: ResourceStack;
  let link = "";
  let seeded: Record<string, unknown> | undefined;
  let args: LocationArgs = { name: "aws-eu-central-1", enabled: false, tags: { team: "edge" } };

  it("create adopts the existing location: one GET, one PATCH with what the args set; originals kept", async () => {
    link = `/org/${org}/location/aws-eu-central-1`;
    seeded = await serverRecord(env, link);
    expect(seeded).toMatchObject({ spec: { enabled: true }, description: "AWS, Europe (Frankfurt)" });

    location = new ResourceStack(env, TYPE, "frankfurt");
    const step = await location.up(await locationInputs(args));
    expect(step.requests).toEqual([
      { method: "GET", path: link, status: 200, body: undefined },
      { method: "PATCH", path: link, status: 200, body: { tags: { team: "edge" }, spec: { enabled: false } } },
    ]);
    expect(location.id).toBe(link);
    expect(location.outputs).toMatchObject({
      name: "aws-eu-central-1",
      enabled: false,
      description: "AWS, Europe (Frankfurt)",
      tags: { team: "edge" },
      serverTags: {
        "cpln/city": "Frankfurt",
        "cpln/country": "Germany",
        "cpln/continent": "Europe",
      },
      org,
      origin: "builtin",
      provider: "aws",
      region: "eu-central-1",
      geo: { city: "Frankfurt", country: "Germany" },
      ipRanges: [],
      selfLink: link,
      original: { enabled: true, description: "AWS, Europe (Frankfurt)", tags: {} },
    });
    const record = await serverRecord(env, link);
    expect(record).toMatchObject({ spec: { enabled: false } });
    expect(record?.tags).toEqual({ ...(seeded?.tags as object), team: "edge" });
  });

  it("the same program again: no changes, no request (server cpln/ tags are not drift)", async () => {
    expect(await location.up(await locationInputs(args))).toMatchObject({ op: "same", requests: [] });
  });

  it("update: enabled and description in one PATCH; server tags untouched", async () => {
    const before = await serverRecord(env, link);
    args = { ...args, enabled: true, description: "Frankfurt, managed" };
    const step = await location.up(await locationInputs(args));
    expect(step.requests).toEqual([
      {
        method: "PATCH",
        path: link,
        status: 200,
        body: { description: "Frankfurt, managed", spec: { enabled: true } },
      },
    ]);
    const after = await serverRecord(env, link);
    for (const field of Object.keys(stable(before))) {
      if (!["description", "spec"].includes(field)) expect(after?.[field], field).toEqual(before?.[field]);
    }
    expect(location.outputs).toMatchObject({ enabled: true, description: "Frankfurt, managed" });
  });

  it("update: removing the last user tag sends that key as null, never the whole map", async () => {
    args = { ...args, tags: {} };
    const step = await location.up(await locationInputs(args));
    expect(step.requests).toEqual([{ method: "PATCH", path: link, status: 200, body: { tags: { team: null } } }]);
    expect((await serverRecord(env, link))?.tags).toEqual(seeded?.tags);
  });

  it("an arg left out is not managed: dropping `description` from the program changes nothing", async () => {
    const { description: _dropped, ...withoutDescription } = args;
    expect(await location.up(await locationInputs(withoutDescription))).toMatchObject({ op: "same", requests: [] });
  });

  it("an out-of-band disable is found by read and undone", async () => {
    await env.client.patchByLink(link, { spec: { enabled: false } });
    takeRequests(env.server);
    const refreshed = await location.refresh();
    expect(refreshed.requests).toEqual([{ method: "GET", path: link, status: 200, body: undefined }]);
    expect(location.outputs).toMatchObject({ enabled: false, original: { enabled: true } });
    const step = await location.up(await locationInputs(args));
    expect(step.requests).toEqual([{ method: "PATCH", path: link, status: 200, body: { spec: { enabled: true } } }]);
  });

  it("replace on a name change: restores the old location first, then adopts the new one", async () => {
    const oldLink = link;
    args = { ...args, name: "aws-eu-west-1" };
    const step = await location.up(await locationInputs(args));
    expect(step.diff).toEqual({ changes: true, replaces: ["name"], deleteBeforeReplace: true });
    link = `/org/${org}/location/aws-eu-west-1`;
    expect(step.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      `PATCH ${oldLink}`,
      `GET ${link}`,
      `PATCH ${link}`,
    ]);
    expect(stable(await serverRecord(env, oldLink))).toEqual(stable(seeded));
    expect(await serverRecord(env, link)).toMatchObject({ description: "Frankfurt, managed", spec: { enabled: true } });
  });

  it("delete: one PATCH restoring the original enabled, description and tags; the location stays", async () => {
    const original = location.outputs.original as Record<string, unknown>;
    expect(original).toEqual({ enabled: true, description: "AWS, Europe (Ireland)", tags: {} });
    const requests = await location.destroy();
    expect(requests).toEqual([
      {
        method: "PATCH",
        path: link,
        status: 200,
        body: { description: "AWS, Europe (Ireland)", spec: { enabled: true } },
      },
    ]);
    const record = await serverRecord(env, link);
    expect(record).toMatchObject({ description: "AWS, Europe (Ireland)", spec: { enabled: true } });
    expect(Object.keys(record?.tags as object).every((key) => key.startsWith("cpln/"))).toBe(true);
  });

  it("delete restores tags the resource added and brings back the ones it removed", async () => {
    const stack = new ResourceStack(env, TYPE, "tokyo");
    const tokyo = `/org/${org}/location/aws-ap-northeast-1`;
    await env.client.patchByLink(tokyo, { tags: { owner: "network" } });
    const before = await serverRecord(env, tokyo);
    const { inputs } = await programInputs(
      () => new sdk.Location("tokyo", { name: "aws-ap-northeast-1", tags: { owner: "platform", tier: "gold" } }),
    );
    await stack.up(inputs);
    const requests = await stack.destroy();
    expect(requests).toEqual([
      {
        method: "PATCH",
        path: tokyo,
        status: 200,
        body: { tags: { owner: "network", tier: null }, description: before?.description, spec: { enabled: true } },
      },
    ]);
    expect(stable(await serverRecord(env, tokyo))).toEqual(stable(before));
  });
});

describe("Location errors", () => {
  it("a location that does not exist: create fails naming it, after one GET and nothing else", async () => {
    const stack = new ResourceStack(env, TYPE, "nowhere");
    const { inputs } = await programInputs(() => new sdk.Location("nowhere", { name: "aws-mars-1", enabled: true }));
    await expect(stack.up(inputs)).rejects.toThrow(/Location "aws-mars-1" does not exist in org/);
    expect(takeRequests(env.server)).toEqual([
      { method: "GET", path: `/org/${org}/location/aws-mars-1`, status: 404, body: undefined },
    ]);
  });
});

describe("Location.get", () => {
  it("reads a location by its self link with one GET, changing nothing", async () => {
    const link = `/org/${org}/location/aws-us-east-1`;
    const { inputs } = await programInputs(() => sdk.Location.get("virginia", link));
    takeRequests(env.server);
    const read = await env.host.read(link, harness.urnFor(TYPE, "virginia"), inputs, {});
    expect(takeRequests(env.server)).toEqual([{ method: "GET", path: link, status: 200, body: undefined }]);
    expect(read.props).toMatchObject({ name: "aws-us-east-1", provider: "aws", region: "us-east-1", selfLink: link });
  });
});
