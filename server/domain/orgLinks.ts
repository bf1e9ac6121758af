import type { Issue } from "../../api/errors.js";
import type { JsonValue } from "../store/store.js";
import { isObject } from "./common.js";

/**
 * Links a request body holds must name objects of the request's org. Everything a principal creates belongs to one
 * org, principals are scoped to an org and a policy governs access within its org (docs.controlplane.com
 * `concepts/resource-model.mdx`, `concepts/access-control.mdx`): a policy of org `demo` whose `targetLinks` names
 * `/org/other/...` was stored before (issue 39). The API's link fields are named `<x>Link` or `<x>Links` at any depth
 * (`targetLinks`, `principalLinks`, `memberLinks`, `locationLinks`, `groupLink`, `data.secretLink`,
 * `dimensions.gvcLink`), also behind a PATCH directive (`$append/targetLinks`); relative links (`//group/g`) resolve
 * in the request's org and full links (`/org/<org>/...`) must name it. Other strings are not links and are left alone.
 */
const LINK_FIELD = /^(?:\$[a-z]+\/)?[A-Za-z0-9]*Links?$/;
const FULL_LINK_ORG = /^\/org\/([^/]*)(?:\/|$)/;

/** The rule as the document states it (`x-cpln-rules` of every operation whose body is checked). */
export const orgLinkRule = {
  rule:
    "Full links in link fields (names ending in Link or Links, at any depth, directives included) name objects of " +
    "the request's org, /org/{org}/...; relative links (//...) resolve in it.",
  issue: /^links into org '.*': every link must name an object of org '.*' \(the request's org\)$/,
};

/** The issues of `body`'s link fields naming another org than `org`, each with its path (`bindings.0.principalLinks.1`). */
export function foreignOrgLinks(org: string, body: JsonValue | undefined, at = ""): Issue[] {
  const issues: Issue[] = [];
  // The keys from `at` down to the value visited: a path is joined only for an issue, not for every value.
  const keys: string[] = [];
  const visit = (value: JsonValue | undefined, inLinkField: boolean) => {
    if (typeof value === "string") {
      if (!inLinkField) return;
      const linked = FULL_LINK_ORG.exec(value)?.[1];
      if (linked !== undefined && linked !== org) {
        issues.push({
          path: keys.reduce(join, at),
          message: `links into org '${linked}': every link must name an object of org '${org}' (the request's org)`,
        });
      }
    } else if (Array.isArray(value)) {
      value.forEach((item, index) => {
        keys.push(String(index));
        visit(item, inLinkField);
        keys.pop();
      });
    } else if (isObject(value)) {
      for (const [key, child] of Object.entries(value)) {
        keys.push(key);
        visit(child, LINK_FIELD.test(key));
        keys.pop();
      }
    }
  };
  visit(body, false);
  return issues;
}

function join(path: string, key: string): string {
  return path === "" ? key : `${path}.${key}`;
}
