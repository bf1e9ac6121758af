/**
 * Issue 39 finding 2: `invite` alone put anyone into a group. A service account holding only `invite` on users
 * created a user with the tags a group's `memberQuery` selects; the user joined the group and used what it grants.
 * Now a create that sets anything besides the email (tags, idp, description: fields a memberQuery can select) needs
 * `edit` on users too.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningServer } from "../../server/index.js";
import { ORG, admin, as, bearer, call, jwtFor, serviceAccountWithKey, start } from "./helpers.js";

let server: RunningServer;
let inviterAuth: string;
let inviter: ReturnType<typeof as>;
let editor: ReturnType<typeof as>;
const MALLORY = "mallory@example.com";

/** What the group `ops` grants: a policy giving mallory `manage` on every service account. */
const escalation = (email: string) => ({
  name: `escalate-${email.split("@")[0] ?? ""}`,
  targetKind: "serviceaccount",
  target: "all",
  bindings: [{ permissions: ["manage"], principalLinks: [`//user/${email}`] }],
});

async function grant(name: string, permissions: string[], principal: string): Promise<void> {
  const created = await admin(server).post(`/org/${ORG}/policy`, {
    name,
    targetKind: "user",
    target: "all",
    bindings: [{ permissions, principalLinks: [principal] }],
  });
  expect(created.status).toBe(201);
}

beforeAll(async () => {
  server = await start();
  inviterAuth = bearer(await serviceAccountWithKey(server, "inviter"));
  inviter = as(server, inviterAuth);
  editor = as(server, bearer(await serviceAccountWithKey(server, "user-editor")));
  await grant("inviters", ["invite"], "//serviceaccount/inviter");
  await grant("user-editors", ["invite", "edit"], "//serviceaccount/user-editor");
  // The group the attack joins: members are the users tagged role=ops; it may manage policies.
  const group = await admin(server).post(`/org/${ORG}/group`, {
    name: "ops",
    memberQuery: { spec: { terms: [{ tag: "role", value: "ops" }] } },
  });
  expect(group.status).toBe(201);
  const policy = await admin(server).post(`/org/${ORG}/policy`, {
    name: "ops-policies",
    targetKind: "policy",
    target: "all",
    bindings: [{ permissions: ["manage"], principalLinks: ["//group/ops"] }],
  });
  expect(policy.status).toBe(201);
});

afterAll(async () => {
  await server.close();
});

describe("a principal holding only invite on users", () => {
  it("cannot create a user with tags: 403 naming tags and edit; the user gets nothing the group grants", async () => {
    const created = await inviter.post(`/org/${ORG}/user`, { email: MALLORY, tags: { role: "ops" } });
    // The attack end to end: mallory, had she joined ops, could now grant herself manage on every service account.
    const mallory = as(server, bearer(await jwtFor(MALLORY)));
    const escalated = await mallory.post(`/org/${ORG}/policy`, escalation(MALLORY));
    expect(escalated.status).toBe(403);
    expect((await mallory.get(`/org/${ORG}/serviceaccount/inviter`)).status).toBe(404);
    expect((await admin(server).get(`/org/${ORG}/policy/${escalation(MALLORY).name}`)).status).toBe(404);
    expect(created.status).toBe(403);
    expect(created.body).toMatchObject({
      code: "Forbidden",
      message: "Not allowed to set tags on a new user (needs edit on user objects; invite alone sets only email)",
    });
    expect((await admin(server).get(`/org/${ORG}/user/${MALLORY}`)).status).toBe(404);
  });

  it("nor through a PUT to the collection (what cpln apply sends)", async () => {
    const put = await call(server, "PUT", `/org/${ORG}/user`, {
      auth: inviterAuth,
      body: { email: MALLORY, tags: { role: "ops" } },
    });
    expect(put.status).toBe(403);
    expect(put.body).toMatchObject({ message: expect.stringContaining("Not allowed to set tags on a new user") });
    expect((await admin(server).get(`/org/${ORG}/user/${MALLORY}`)).status).toBe(404);
  });

  it("cannot set idp or description either (a memberQuery can select any property)", async () => {
    const idp = await inviter.post(`/org/${ORG}/user`, { email: MALLORY, idp: "saml-corp" });
    expect(idp.status).toBe(403);
    expect(idp.body).toMatchObject({ message: expect.stringContaining("Not allowed to set idp on a new user") });
    const described = await inviter.post(`/org/${ORG}/user`, { email: MALLORY, description: "ops", tags: {} });
    expect(described.status).toBe(403);
    expect(described.body).toMatchObject({
      message: expect.stringContaining("Not allowed to set description on a new user"),
    });
    expect((await admin(server).get(`/org/${ORG}/user/${MALLORY}`)).status).toBe(404);
  });

  it("still invites by email (defaults echoed are accepted), and the user joins no group it selects by tag", async () => {
    const created = await inviter.post(`/org/${ORG}/user`, { email: MALLORY, description: MALLORY, tags: {} });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ email: MALLORY, tags: {} });
    const mallory = as(server, bearer(await jwtFor(MALLORY)));
    // Not in ops: the policy ops may create is refused, and mallory still cannot touch service accounts.
    const escalated = await mallory.post(`/org/${ORG}/policy`, escalation(MALLORY));
    expect(escalated.status).toBe(403);
    expect((await admin(server).get(`/org/${ORG}/policy/${escalation(MALLORY).name}`)).status).toBe(404);
    expect((await mallory.get(`/org/${ORG}/serviceaccount/inviter`)).status).toBe(404);
    // Tagging the user afterwards is an edit: the inviter may not.
    const tagged = await inviter.patch(`/org/${ORG}/user/${MALLORY}`, { tags: { role: "ops" } });
    expect(tagged.status).toBe(404);
    expect((await mallory.post(`/org/${ORG}/policy`, escalation(MALLORY))).status).toBe(403);
  });
});

describe("a principal holding invite and edit on users", () => {
  it("creates a tagged user, who joins the group the tag selects (edit could set the tag anyway)", async () => {
    const email = "trent@example.com";
    const created = await editor.post(`/org/${ORG}/user`, { email, tags: { role: "ops" }, idp: "saml-corp" });
    expect(created.status).toBe(201);
    const trent = as(server, bearer(await jwtFor(email)));
    expect((await trent.post(`/org/${ORG}/policy`, escalation(email))).status).toBe(201);
  });
});
