/**
 * Authorization matrix for the 13 endpoints: no credentials, a bad key, an expired JWT, a JWT for another audience,
 * a principal with no grants, a viewer (JWT user in the builtin viewers group), an editor (service account whose
 * group holds `edit` policies) and a superuser (service account in the builtin superusers group).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningServer } from "../../server/index.js";
import {
  JWT,
  ORG,
  addMember,
  admin,
  apiError,
  as,
  bearer,
  call,
  field,
  jwtFor,
  serviceAccountWithKey,
  start,
  type Answer,
} from "./helpers.js";

type Who = "none" | "badKey" | "expiredJwt" | "otherAudienceJwt" | "noGrants" | "viewer" | "editor" | "superuser";
const everyone: Who[] = [
  "none",
  "badKey",
  "expiredJwt",
  "otherAudienceJwt",
  "noGrants",
  "viewer",
  "editor",
  "superuser",
];

let server: RunningServer;
const auth = {} as Record<Who, string | undefined>;
let quotaId = "";
let counter = 0;

beforeAll(async () => {
  server = await start();
  auth.none = undefined;
  auth.badKey = bearer("nosuchkey.not-a-real-secret");
  auth.expiredJwt = bearer(await jwtFor("viewer@example.com", { expiresIn: Math.floor(Date.now() / 1000) - 60 }));
  auth.otherAudienceJwt = bearer(await jwtFor("viewer@example.com", { audience: "another-service" }));
  auth.noGrants = bearer(await serviceAccountWithKey(server, "nobody"));
  await addMember(server, "viewers", "//user/viewer@example.com");
  auth.viewer = bearer(await jwtFor("viewer@example.com"));
  auth.editor = bearer(await serviceAccountWithKey(server, "editor"));
  expect(
    (await admin(server).post(`/org/${ORG}/group`, { name: "editors", memberLinks: ["//serviceaccount/editor"] }))
      .status,
  ).toBe(201);
  for (const kind of [
    "location",
    "policy",
    "volumeset",
    "cloudaccount",
    "mk8s",
    "group",
    "serviceaccount",
    "auditctx",
    "quota",
  ]) {
    const policy = await admin(server).post(`/org/${ORG}/policy`, {
      name: `editors-${kind}`,
      targetKind: kind,
      target: "all",
      bindings: [{ permissions: ["edit"], principalLinks: ["//group/editors"] }],
    });
    expect(policy.status).toBe(201);
  }
  auth.superuser = bearer(await serviceAccountWithKey(server, "root"));
  await addMember(server, "superusers", "//serviceaccount/root");
  expect(
    (await admin(server).post(`/org/${ORG}/policy`, { name: "shared", targetKind: "group", target: "all" })).status,
  ).toBe(201);
  const quotas = field<{ id: string; name: string }[]>((await admin(server).get(`/org/${ORG}/quota`)).body, "items");
  quotaId = quotas.find((q) => q.name === "gvcs")?.id ?? "";
});

afterAll(async () => {
  await server.close();
});

interface Endpoint {
  name: string;
  run(who: string | undefined): Promise<Answer>;
  expected: Record<Who, number>;
  /** Successful bodies of a principal with no grants must show nothing. */
  emptyForNoGrants?: boolean;
}

const unauthenticated = { none: 401, badKey: 401, expiredJwt: 401, otherAudienceJwt: 401 } as const;

const endpoints: Endpoint[] = [
  {
    name: "1 POST /org/{org}/gvc/{gvc}/volumeset",
    run: (a) =>
      call(server, "POST", `/org/${ORG}/gvc/default/volumeset`, {
        auth: a,
        body: { name: `vs-${++counter}`, spec: { initialCapacity: 10, performanceClass: "general-purpose-ssd" } },
      }),
    expected: { ...unauthenticated, none: 403, noGrants: 403, viewer: 403, editor: 403, superuser: 201 },
  },
  {
    name: "2 PATCH /org/{org}/location/{name}",
    run: (a) =>
      call(server, "PATCH", `/org/${ORG}/location/aws-us-east-1`, { auth: a, body: { tags: { run: ++counter } } }),
    expected: { ...unauthenticated, noGrants: 404, viewer: 403, editor: 200, superuser: 200 },
  },
  {
    name: "3 POST /org/{org}/cloudaccount/-query",
    run: (a) => call(server, "POST", `/org/${ORG}/cloudaccount/-query`, { auth: a, body: {} }),
    expected: { ...unauthenticated, noGrants: 200, viewer: 200, editor: 200, superuser: 200 },
    emptyForNoGrants: true,
  },
  {
    name: "4 POST /org/{org}/mk8s/{name}/-join",
    run: (a) => call(server, "POST", `/org/${ORG}/mk8s/edge/-join`, { auth: a, body: { nodePoolName: "general" } }),
    expected: { ...unauthenticated, noGrants: 404, viewer: 403, editor: 403, superuser: 200 },
  },
  {
    name: "5 PATCH /org/{org}/policy/{name}",
    run: (a) =>
      call(server, "PATCH", `/org/${ORG}/policy/shared`, { auth: a, body: { description: `run ${++counter}` } }),
    expected: { ...unauthenticated, noGrants: 404, viewer: 403, editor: 200, superuser: 200 },
  },
  {
    name: "6 GET /org/{org}/cloudaccount/-schema/permissions",
    run: (a) => call(server, "GET", `/org/${ORG}/cloudaccount/-schema/permissions`, { auth: a }),
    expected: { ...unauthenticated, noGrants: 200, viewer: 200, editor: 200, superuser: 200 },
  },
  {
    name: "7 GET /org/{org}/serviceaccount",
    run: (a) => call(server, "GET", `/org/${ORG}/serviceaccount`, { auth: a }),
    expected: { ...unauthenticated, noGrants: 200, viewer: 200, editor: 200, superuser: 200 },
    emptyForNoGrants: true,
  },
  {
    name: "8 GET /org/{org}/group",
    run: (a) => call(server, "GET", `/org/${ORG}/group`, { auth: a }),
    expected: { ...unauthenticated, noGrants: 200, viewer: 200, editor: 200, superuser: 200 },
    emptyForNoGrants: true,
  },
  {
    name: "9 GET /org/{org}/policy/{name}",
    run: (a) => call(server, "GET", `/org/${ORG}/policy/shared`, { auth: a }),
    expected: { ...unauthenticated, noGrants: 404, viewer: 200, editor: 200, superuser: 200 },
  },
  {
    name: "10 GET /org/{org}/group/{name}/-accessreport",
    run: (a) => call(server, "GET", `/org/${ORG}/group/viewers/-accessreport`, { auth: a }),
    expected: { ...unauthenticated, noGrants: 404, viewer: 200, editor: 200, superuser: 200 },
  },
  {
    name: "11 DELETE /org/{org}/auditctx/{name}",
    run: async (a) => {
      const name = `ctx-${++counter}`;
      expect((await admin(server).post(`/org/${ORG}/auditctx`, { name })).status).toBe(201);
      return call(server, "DELETE", `/org/${ORG}/auditctx/${name}`, { auth: a });
    },
    // Audit contexts cannot be deleted: whoever can view one gets 403.
    expected: { ...unauthenticated, noGrants: 404, viewer: 403, editor: 403, superuser: 403 },
  },
  {
    name: "12 GET /org/{org}/quota",
    run: (a) => call(server, "GET", `/org/${ORG}/quota`, { auth: a }),
    expected: { ...unauthenticated, noGrants: 200, viewer: 200, editor: 200, superuser: 200 },
    emptyForNoGrants: true,
  },
  {
    name: "13 GET /org/{org}/quota/{id}",
    run: (a) => call(server, "GET", `/org/${ORG}/quota/${quotaId}`, { auth: a }),
    expected: { ...unauthenticated, noGrants: 404, viewer: 200, editor: 200, superuser: 200 },
  },
];

const unauthorizedMessages: Partial<Record<Who, string>> = {
  none: "Missing Authorization header",
  badKey: "Invalid credentials",
  expiredJwt: "Invalid token (ERR_JWT_EXPIRED)",
  otherAudienceJwt: "Invalid token (ERR_JWT_CLAIM_VALIDATION_FAILED)",
};

describe.each(endpoints)("$name", (endpoint) => {
  it.each(everyone)("%s", async (who) => {
    const answer = await endpoint.run(auth[who]);
    const status = endpoint.expected[who];
    expect(answer.status).toBe(status);
    if (status === 401) {
      expect(answer.body).toEqual(apiError(401, "Unauthorized", unauthorizedMessages[who] as string));
    } else if (status === 404) {
      expect(answer.body).toEqual(
        apiError(404, "NotFound", expect.stringMatching(/^(mk8s|location|policy|group|auditctx|quota) \S+ not found$/)),
      );
    } else if (status === 403) {
      expect(answer.body).toEqual(
        apiError(403, "Forbidden", expect.stringMatching(/^(Not allowed to |Audit contexts cannot be deleted)/)),
      );
    }
    if (who === "noGrants" && endpoint.emptyForNoGrants) expect(field(answer.body, "items")).toEqual([]);
    if (status === 200 && endpoint.emptyForNoGrants && who !== "noGrants") {
      expect(field<unknown[]>(answer.body, "items").length).toBeGreaterThan(0);
    }
    // Credentials never come back in a response.
    const credential = auth[who];
    if (credential !== undefined)
      expect(JSON.stringify(answer.body ?? "")).not.toContain(credential.replace(/^Bearer /, ""));
  });
});

describe("authentication details", () => {
  it("a key works raw or as Bearer, case-insensitively", async () => {
    const key = (auth.superuser as string).replace(/^Bearer /, "");
    expect((await as(server, key).get(`/org/${ORG}/group`)).status).toBe(200);
    expect((await as(server, `bearer ${key}`).get(`/org/${ORG}/group`)).status).toBe(200);
  });

  it("a JWT signed with another secret, or from another issuer, is 401", async () => {
    const forged = await jwtFor("viewer@example.com", { secret: "not-the-server-secret-0123456789abcdef" });
    expect((await as(server, bearer(forged)).get(`/org/${ORG}/group`)).body).toEqual(
      apiError(401, "Unauthorized", "Invalid token (ERR_JWS_SIGNATURE_VERIFICATION_FAILED)"),
    );
    const otherIssuer = await jwtFor("viewer@example.com", { issuer: "https://elsewhere.test" });
    expect((await as(server, bearer(otherIssuer)).get(`/org/${ORG}/group`)).status).toBe(401);
  });

  it("a JWT without an expiry or without an email claim is 401", async () => {
    const secret = new TextEncoder().encode(JWT.secret);
    const forever = await new SignJWT({ email: "viewer@example.com" })
      .setProtectedHeader({ alg: "HS256" })
      .setIssuer(JWT.issuer)
      .setAudience(JWT.audience)
      .sign(secret);
    expect((await as(server, bearer(forever)).get(`/org/${ORG}/group`)).body).toEqual(
      apiError(401, "Unauthorized", "Invalid token (ERR_JWT_CLAIM_VALIDATION_FAILED)"),
    );
    const anonymousToken = await new SignJWT({ sub: "x" })
      .setProtectedHeader({ alg: "HS256" })
      .setIssuer(JWT.issuer)
      .setAudience(JWT.audience)
      .setExpirationTime("5m")
      .sign(secret);
    expect((await as(server, bearer(anonymousToken)).get(`/org/${ORG}/group`)).body).toEqual(
      apiError(401, "Unauthorized", "Token has no email claim"),
    );
  });

  it("a revoked key ($drop/keys) stops working at once", async () => {
    const key = await serviceAccountWithKey(server, "shortlived");
    await addMember(server, "viewers", "//serviceaccount/shortlived");
    expect((await as(server, bearer(key)).get(`/org/${ORG}/group`)).status).toBe(200);
    const revoked = await admin(server).patch(`/org/${ORG}/serviceaccount/shortlived`, {
      "$drop/keys": [key.split(".")[0]],
    });
    expect(revoked.status).toBe(200);
    expect(field(revoked.body, "keys")).toEqual([]);
    expect((await as(server, bearer(key)).get(`/org/${ORG}/group`)).status).toBe(401);
  });

  it("a deleted service account's keys stop working", async () => {
    const key = await serviceAccountWithKey(server, "gone");
    expect((await admin(server).delete(`/org/${ORG}/serviceaccount/gone`)).status).toBe(202);
    expect((await as(server, bearer(key)).get(`/org/${ORG}/group`)).status).toBe(401);
  });
});

describe("authorization follows policy and group changes immediately", () => {
  it("joining and leaving a group grants and removes access", async () => {
    const key = await serviceAccountWithKey(server, "mover");
    const mover = as(server, bearer(key));
    expect(field((await mover.get(`/org/${ORG}/cloudaccount`)).body, "items")).toEqual([]);
    await addMember(server, "viewers", "//serviceaccount/mover");
    expect(field<unknown[]>((await mover.get(`/org/${ORG}/cloudaccount`)).body, "items")).toHaveLength(2);
    const left = await admin(server).patch(`/org/${ORG}/group/viewers`, {
      "$drop/memberLinks": [`/org/${ORG}/serviceaccount/mover`],
    });
    expect(left.status).toBe(200);
    expect(field((await mover.get(`/org/${ORG}/cloudaccount`)).body, "items")).toEqual([]);
  });

  it("a policy by link shows exactly the linked object; by query exactly the matching ones", async () => {
    const key = await serviceAccountWithKey(server, "picky");
    const picky = as(server, bearer(key));
    const byLink = await admin(server).post(`/org/${ORG}/policy`, {
      name: "picky-link",
      targetKind: "cloudaccount",
      targetLinks: ["//cloudaccount/aws-prod"],
      bindings: [{ permissions: ["view"], principalLinks: ["//serviceaccount/picky"] }],
    });
    expect(byLink.status).toBe(201);
    const names = async () =>
      field<{ name: string }[]>((await picky.get(`/org/${ORG}/cloudaccount`)).body, "items").map((i) => i.name);
    expect(await names()).toEqual(["aws-prod"]);
    expect((await picky.get(`/org/${ORG}/cloudaccount/gcp-dev`)).status).toBe(404);
    const byQuery = await admin(server).post(`/org/${ORG}/policy`, {
      name: "picky-query",
      targetKind: "cloudaccount",
      targetQuery: { spec: { terms: [{ tag: "env", value: "dev" }] } },
      bindings: [{ permissions: ["view"], principalLinks: ["//serviceaccount/picky"] }],
    });
    expect(byQuery.status).toBe(201);
    expect(await names()).toEqual(["aws-prod", "gcp-dev"]);
    expect((await picky.get(`/org/${ORG}/cloudaccount/gcp-dev`)).status).toBe(200);
    // view does not imply edit
    expect((await picky.patch(`/org/${ORG}/cloudaccount/gcp-dev`, { description: "x" })).status).toBe(403);
  });

  it("implied permissions count: edit implies view, manage implies delete", async () => {
    const key = await serviceAccountWithKey(server, "implied");
    const implied = as(server, bearer(key));
    expect((await admin(server).post(`/org/${ORG}/group`, { name: "implied-target" })).status).toBe(201);
    const policy = await admin(server).post(`/org/${ORG}/policy`, {
      name: "implied",
      targetKind: "group",
      targetLinks: ["//group/implied-target"],
      bindings: [{ permissions: ["edit"], principalLinks: ["//serviceaccount/implied"] }],
    });
    expect(policy.status).toBe(201);
    expect((await implied.get(`/org/${ORG}/group/implied-target`)).status).toBe(200);
    expect((await implied.delete(`/org/${ORG}/group/implied-target`)).status).toBe(403);
    const manage = await admin(server).patch(`/org/${ORG}/policy/implied`, {
      "$append/bindings": [{ permissions: ["manage"], principalLinks: ["//serviceaccount/implied"] }],
    });
    expect(manage.status).toBe(200);
    expect((await implied.delete(`/org/${ORG}/group/implied-target`)).status).toBe(202);
  });

  it("a group's memberQuery makes the matching users members, following user changes", async () => {
    for (const [email, team] of [
      ["ana@example.com", "core"],
      ["ben@example.com", "web"],
    ] as const) {
      expect((await admin(server).post(`/org/${ORG}/user`, { email, tags: { team } })).status).toBe(201);
    }
    const group = await admin(server).post(`/org/${ORG}/group`, {
      name: "core-team",
      memberQuery: { spec: { terms: [{ tag: "team", value: "core" }] } },
    });
    expect(group.status).toBe(201);
    const policy = await admin(server).post(`/org/${ORG}/policy`, {
      name: "core-accounts",
      targetKind: "cloudaccount",
      target: "all",
      bindings: [{ permissions: ["view"], principalLinks: ["//group/core-team"] }],
    });
    expect(policy.status).toBe(201);
    const ana = as(server, bearer(await jwtFor("ana@example.com")));
    const ben = as(server, bearer(await jwtFor("ben@example.com")));
    expect(field<unknown[]>((await ana.get(`/org/${ORG}/cloudaccount`)).body, "items")).toHaveLength(2);
    expect(field((await ben.get(`/org/${ORG}/cloudaccount`)).body, "items")).toEqual([]);
    const moved = await admin(server).patch(`/org/${ORG}/user/ben@example.com`, { tags: { team: "core" } });
    expect(moved.status).toBe(200);
    expect(field<unknown[]>((await ben.get(`/org/${ORG}/cloudaccount`)).body, "items")).toHaveLength(2);
  });
});

describe("JWTs verified with a JWKS file", () => {
  it("accepts a token signed by a key of the file and refuses one signed by another key", async () => {
    const trusted = await generateKeyPair("RS256");
    const other = await generateKeyPair("RS256");
    const dir = mkdtempSync(join(tmpdir(), "cpln-jwks-"));
    const file = join(dir, "jwks.json");
    writeFileSync(
      file,
      JSON.stringify({ keys: [{ ...(await exportJWK(trusted.publicKey)), kid: "k1", alg: "RS256" }] }),
    );
    const jwks = await start({ jwt: { jwksFile: file, issuer: "https://idp.test", audience: "cpln" } });
    try {
      await addMember(jwks, "viewers", "//user/rs@example.com");
      const sign = (key: Parameters<SignJWT["sign"]>[0]) =>
        new SignJWT({ email: "rs@example.com" })
          .setProtectedHeader({ alg: "RS256", kid: "k1" })
          .setIssuer("https://idp.test")
          .setAudience("cpln")
          .setExpirationTime("10m")
          .sign(key);
      expect((await as(jwks, bearer(await sign(trusted.privateKey))).get(`/org/${ORG}/group`)).status).toBe(200);
      const forged = await as(jwks, bearer(await sign(other.privateKey))).get(`/org/${ORG}/group`);
      expect(forged.body).toEqual(
        apiError(401, "Unauthorized", "Invalid token (ERR_JWS_SIGNATURE_VERIFICATION_FAILED)"),
      );
    } finally {
      await jwks.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
