import { parseLink } from "../../api/links.js";
import type { Principal } from "../auth/authn.js";
import type { AccessReportPermission, OrgAuthz } from "../auth/authz.js";
import type { StoreOps } from "../store/store.js";

/**
 * What an access report shows its caller. The org permission `viewAccessReport` ("Grantees can inspect the granted
 * access report on all resources within the org": the CLI's permission catalog and docs.controlplane.com
 * reference/org; org `manage` implies it) shows every entry. Any other caller, who may view the object, sees only
 * the entries whose principal and granting policy it may view itself: a hidden policy, service account or user is
 * not named (issue 39 finding 5; their own GETs answer 404). No source says what the real API shows such a caller,
 * so the report shows no more than the caller could read object by object.
 */
export async function accessReportFor(
  store: StoreOps,
  authz: OrgAuthz,
  principal: Principal,
  org: string,
  report: AccessReportPermission[],
): Promise<AccessReportPermission[]> {
  const orgRecord = await store.get(org, "org", "", org);
  if (orgRecord && authz.can(principal, "org", "viewAccessReport", orgRecord.doc)) return report;
  const decided = new Map<string, boolean>();
  const mayView = async (link: string): Promise<boolean> => {
    let visible = decided.get(link);
    if (visible === undefined) {
      const parsed = parseLink(link);
      // Only objects of this org that exist (a gvc's identity in its gvc): a link to another org, to a kind
      // cpln-local does not serve or to nothing is not shown, as the caller could not read it either.
      const inOrg = parsed?.org === org && parsed.name !== undefined ? parsed : undefined;
      const record = inOrg ? await store.get(org, inOrg.kind, inOrg.gvc ?? "", inOrg.name ?? "") : undefined;
      visible = inOrg !== undefined && record !== undefined && authz.can(principal, inOrg.kind, "view", record.doc);
      decided.set(link, visible);
    }
    return visible;
  };
  const shown: AccessReportPermission[] = [];
  for (const permission of report) {
    const bindings = [];
    for (const binding of permission.bindings) {
      if ((await mayView(binding.grantingPolicyLink)) && (await mayView(binding.principalLink))) bindings.push(binding);
    }
    shown.push({ ...permission, bindings });
  }
  return shown;
}
