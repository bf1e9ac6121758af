/**
 * Every stored key that becomes a path segment (names, user emails, gvc names, the org name) has a length limit
 * within the server's path-segment limit, so whatever is created can be read, changed and deleted again: at the limit
 * the whole lifecycle works; one character over is a 400 naming the field (or, for the org, a start-up error).
 */
import { z } from "zod";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kinds, type Kind } from "../../api/kinds/index.js";
import { NAME_MAX } from "../../api/schemas/common.js";
import { EMAIL_MAX } from "../../api/schemas/user.js";
import { MAX_PARAM_LENGTH } from "../../server/app.js";
import { kindRules } from "../../server/domain/index.js";
import { startServer, type RunningServer } from "../../server/index.js";
import { admin, ADMIN_KEY, apiError, field, ORG, start } from "./helpers.js";

let server: RunningServer;

beforeAll(async () => {
  server = await start();
});
afterAll(async () => {
  await server.close();
});

/** A name of exactly `length` characters that follows the name rule. */
const nameOf = (length: number, letter = "n") => `${letter}${"-0".repeat(length)}`.slice(0, length - 1) + "z";

/** A valid email of exactly `length` characters whose local part holds `pluses` `+` signs (percent-encoded in URLs). */
function emailOf(length: number, pluses = 0): string {
  const local = `u${"+".repeat(pluses)}`.padEnd(64, "x");
  const labels = `${"d".repeat(63)}.`.repeat(5).slice(0, length - local.length - 1 - ".example".length);
  const email = `${local}@${labels.replace(/\.$/, "d")}.example`;
  expect(email).toHaveLength(length);
  return email;
}

describe("path-segment keys have limits within the router's", () => {
  it(`every kind's naming field is limited to at most ${MAX_PARAM_LENGTH} characters (the path-segment limit)`, () => {
    const limits: Record<string, number | undefined> = {};
    for (const [kind, rules] of Object.entries(kindRules)) {
      if (!rules.createBody) continue;
      const schema = z.toJSONSchema(rules.createBody(), { io: "input", unrepresentable: "any" }) as {
        properties?: Record<string, { maxLength?: number }>;
      };
      limits[kind] = schema.properties?.[rules.nameField ?? "name"]?.maxLength;
    }
    expect(Object.keys(limits).length).toBeGreaterThan(5);
    for (const [kind, limit] of Object.entries(limits)) {
      expect(limit, `${kind} has no length limit on its naming field`).toBeDefined();
      expect(limit!, kind).toBeLessThanOrEqual(MAX_PARAM_LENGTH);
    }
    expect(limits["user"]).toBe(EMAIL_MAX);
    expect(limits["group"]).toBe(NAME_MAX);
  });
});

describe(`users: email at most ${EMAIL_MAX} characters`, () => {
  it(`a ${EMAIL_MAX}-character email: create, GET, PATCH, list, DELETE all work (also percent-encoded past ${MAX_PARAM_LENGTH})`, async () => {
    for (const email of [emailOf(EMAIL_MAX), emailOf(EMAIL_MAX, 40)]) {
      const url = `/org/${ORG}/user/${encodeURIComponent(email)}`;
      const created = await admin(server).post(`/org/${ORG}/user`, { email });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      expect(field(created.body, "name")).toBe(email);
      expect((await admin(server).get(url)).status).toBe(200);
      const patched = await admin(server).patch(url, { description: "longest" });
      expect(patched.status, JSON.stringify(patched.body)).toBe(200);
      expect(field(patched.body, "description")).toBe("longest");
      const listed = await admin(server).get(`/org/${ORG}/user`);
      expect(field<{ email: string }[]>(listed.body, "items").map((u) => u.email)).toContain(email);
      expect((await admin(server).delete(url)).status).toBe(202);
      expect((await admin(server).get(url)).status).toBe(404);
    }
    expect(encodeURIComponent(emailOf(EMAIL_MAX, 40)).length).toBeGreaterThan(MAX_PARAM_LENGTH);
  });

  it(`a ${EMAIL_MAX + 1}-character email is a 400 naming email; nothing is stored`, async () => {
    const email = emailOf(EMAIL_MAX + 1);
    const created = await admin(server).post(`/org/${ORG}/user`, { email });
    expect(created.body).toEqual(
      apiError(400, "BadRequest", expect.any(String), [
        { path: "email", message: `must be at most ${EMAIL_MAX} characters` },
      ]),
    );
    const listed = await admin(server).get(`/org/${ORG}/user`);
    expect(field<{ email: string }[]>(listed.body, "items").map((u) => u.email)).not.toContain(email);
  });
});

describe(`names at most ${NAME_MAX} characters`, () => {
  const bodies: Record<string, Record<string, unknown>> = {
    group: {},
    serviceaccount: {},
    auditctx: {},
    cloudaccount: { provider: "aws" },
    policy: { targetKind: "group" },
    mk8s: {
      spec: {
        version: "1.28.4",
        provider: { generic: { location: "aws-eu-central-1", nodePools: [{ name: nameOf(NAME_MAX, "p") }] } },
      },
    },
    gvc: {},
  };

  for (const [kind, extra] of Object.entries(bodies)) {
    it(`${kind}: a ${NAME_MAX}-character name lives a full lifecycle; ${NAME_MAX + 1} is a 400 naming name`, async () => {
      const name = nameOf(NAME_MAX);
      const url = `/org/${ORG}/${kind}/${name}`;
      const created = await admin(server).post(`/org/${ORG}/${kind}`, { name, ...extra });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      expect((await admin(server).get(url)).status).toBe(200);
      expect((await admin(server).patch(url, { description: "longest" })).status).toBe(200);
      // Kinds whose objects cannot be deleted (audit contexts) refuse with 403 and keep the object.
      const undeletable = kinds[kind as Kind].deletable === false;
      expect((await admin(server).delete(url)).status).toBe(undeletable ? 403 : 202);
      expect((await admin(server).get(url)).status).toBe(undeletable ? 200 : 404);

      const over = await admin(server).post(`/org/${ORG}/${kind}`, { name: nameOf(NAME_MAX + 1), ...extra });
      expect(over.body).toEqual(
        apiError(400, "BadRequest", expect.any(String), [
          { path: "name", message: `must be at most ${NAME_MAX} characters` },
        ]),
      );
    });
  }

  it(`a volume set named with ${NAME_MAX} characters inside a gvc named with ${NAME_MAX}: full lifecycle`, async () => {
    const gvc = nameOf(NAME_MAX, "g");
    const name = nameOf(NAME_MAX, "v");
    expect((await admin(server).post(`/org/${ORG}/gvc`, { name: gvc })).status).toBe(201);
    const base = `/org/${ORG}/gvc/${gvc}/volumeset`;
    const created = await admin(server).post(base, {
      name,
      spec: { initialCapacity: 10, performanceClass: "general-purpose-ssd", fileSystemType: "ext4" },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect((await admin(server).get(`${base}/${name}`)).status).toBe(200);
    expect((await admin(server).patch(`${base}/${name}`, { description: "longest" })).status).toBe(200);
    expect((await admin(server).delete(`${base}/${name}`)).status).toBe(202);
    expect((await admin(server).delete(`/org/${ORG}/gvc/${gvc}`)).status).toBe(202);
  });
});

describe("the org name", () => {
  it(`a ${NAME_MAX}-character org is served; a longer or malformed one is refused at start with the rule`, async () => {
    const org = nameOf(NAME_MAX, "o");
    const long = await startServer({ org, adminKey: ADMIN_KEY });
    try {
      const got = await admin(long).get(`/org/${org}`);
      expect(got.status).toBe(200);
      expect(field(got.body, "name")).toBe(org);
    } finally {
      await long.close();
    }
    const over = nameOf(NAME_MAX + 1, "o");
    await expect(startServer({ org: over, adminKey: ADMIN_KEY })).rejects.toThrow(
      `org name '${over}' must be at most ${NAME_MAX} characters`,
    );
    await expect(startServer({ org: "Bad_Org", adminKey: ADMIN_KEY })).rejects.toThrow(
      /^org name 'Bad_Org' must start with a lowercase letter/,
    );
  });
});
