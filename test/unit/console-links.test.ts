/**
 * The console's two guards on where its key goes (console/src/links.ts), case by case: which object links it opens,
 * and which paths `call` (console/src/api.ts) sends a request to at all. The browser test (test/console/guard.test.ts) shows them end
 * to end; these name every form of link one by one.
 */
import { describe, expect, it } from "vitest";
import { kindProblem, objectLinkProblem, pathProblem } from "../../console/src/links.js";

describe("objectLinkProblem", () => {
  it.each([
    "/org/demo",
    "/org/demo/group/viewers",
    "/org/demo/gvc/default/workload/web",
    "/org/demo/user/ada@data.example.com",
    "/org/demo/policy/-query-like-name",
  ])("opens %s", (link) => {
    expect(objectLinkProblem("demo", link)).toBeUndefined();
  });

  it.each([
    ["/org/other/group/viewers", "is not a link into org demo"],
    ["/org/demo-2/group/viewers", "is not a link into org demo"],
    ["/org", "is not a link into org demo"],
    ["org/demo/group/viewers", "is not a link into org demo"],
    ["//evil.example/org/demo/group/viewers", "is not a link into org demo"],
    ["http://127.0.0.1:9/org/demo/group/viewers", "is not a link into org demo"],
    ["/org/demo/../other/group/viewers", "is not a plain object link"],
    ["/org/demo/./group/viewers", "is not a plain object link"],
    ["/org/demo/%2e%2e/other/group/viewers", "is not a plain object link"],
    ["/org/demo/%2E%2e/other", "is not a plain object link"],
    ["/org/demo/.%2e/other", "is not a plain object link"],
    ["/org/demo//group/viewers", "is not a plain object link"],
    ["/org/demo/group/viewers/", "is not a plain object link"],
    ["/org/demo/group/viewers?x=1", "is not a plain object link"],
    ["/org/demo/group/viewers#x", "is not a plain object link"],
    ["/org/demo/group\\..\\..\\other", "is not a plain object link"],
    ["/org/demo/group/view ers", "is not a plain object link"],
  ])("refuses %s: %s", (link, reason) => {
    expect(objectLinkProblem("demo", link)).toBe(`${link} ${reason}`);
  });
});

describe("pathProblem", () => {
  const origin = "http://127.0.0.1:8080";
  it.each([
    "//evil.example/org/demo",
    "http://evil.example/org/demo",
    "https://127.0.0.1:8080/org/demo",
    "org/demo",
    "",
  ])("refuses %s", (path) => {
    expect(pathProblem(path, origin)).toBe(`${path} is not a path of this server`);
  });

  it.each([
    ["/org/demo/../../_cpln-local/org/demo/reset#/-query", "/_cpln-local/org/demo/reset"],
    ["/org/demo/%2e%2e/other/-query", "/org/other/-query"],
    ["/org/demo/./group", "/org/demo/group"],
    ["/org/demo/group#x", "/org/demo/group"],
    ["/org/demo\\group", "/org/demo/group"],
    ["/org/demo/a b", "/org/demo/a%20b"],
  ])("refuses %s, which the browser would send as %s", (path, sent) => {
    expect(pathProblem(path, origin)).toBe(`${path} is not a plain path (the browser would send ${sent})`);
  });

  it.each([
    "/org/demo",
    "/_cpln-local/requests",
    "/openapi.json",
    "/org/demo/policy/-query?x=1",
    "/org/demo/user/ada@data.example.com",
    "/org/demo/group?cursor=YWJj-_&limit=100",
  ])("accepts %s", (path) => {
    expect(pathProblem(path, origin)).toBeUndefined();
  });
});

describe("kindProblem", () => {
  it.each(["policy", "serviceaccount", "mk8s"])("accepts %s", (kind) => expect(kindProblem(kind)).toBeUndefined());
  it.each(["../../_cpln-local/org/demo/reset#", "policy/x", "Policy", "", "policy?x"])("refuses %s", (kind) =>
    expect(kindProblem(kind)).toBe(`${kind} is not a kind`),
  );
});
