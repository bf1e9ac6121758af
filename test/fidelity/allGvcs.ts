/**
 * The check of the `<kind>/all-gvcs-*` facts (the docs' `GET /org/{org}/<kind>`, the CLI's `get --all-gvcs`): an
 * object of the kind in each of two gvcs, both in the org-level list (every page, as the CLI's fetchPages follows
 * `next`) and in the org-level query, each as its own GET answers it.
 */
import { expect } from "vitest";
import type { RunningServer } from "../../server/index.js";
import { ORG, admin } from "../server/helpers.js";

let made = 0;

const selfOf = (item: unknown) =>
  (item as { links: { rel: string; href: string }[] }).links.find((l) => l.rel === "self")?.href ?? "";

export async function checkAllGvcs(
  server: RunningServer,
  kind: string,
  gvc: string,
  body: (name: string) => Record<string, unknown>,
): Promise<void> {
  const other = `${kind}-elsewhere-${++made}`;
  expect((await admin(server).post(`/org/${ORG}/gvc`, { name: other })).status).toBe(201);
  const links: string[] = [];
  for (const where of [gvc, other]) {
    const name = `every-${made}`;
    const created = await admin(server).post(`/org/${ORG}/gvc/${where}/${kind}`, body(name));
    expect({ where, status: created.status }).toEqual({ where, status: 201 });
    links.push(`/org/${ORG}/gvc/${where}/${kind}/${name}`);
  }
  const listed: unknown[] = [];
  for (let page: string | undefined = `/org/${ORG}/${kind}`; page !== undefined;) {
    const answer = await admin(server).get(page);
    expect(answer.status).toBe(200);
    const { items, links: pageLinks } = answer.body as { items: unknown[]; links: { rel: string; href: string }[] };
    listed.push(...items);
    page = pageLinks.find((l) => l.rel === "next")?.href;
  }
  const expected = await Promise.all(links.map(async (link) => (await admin(server).get(link)).body));
  expect(listed.filter((item) => links.includes(selfOf(item)))).toEqual(expected);
  const queried = await admin(server).post(`/org/${ORG}/${kind}/-query`, {
    spec: { terms: [{ property: "name", value: `every-${made}` }] },
  });
  expect(queried.status).toBe(200);
  expect((queried.body as { items: unknown[] }).items.map(selfOf)).toEqual(links);
}
