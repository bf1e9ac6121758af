/**
 * Who can do what: for a principal, every grant it holds (directly or through a group, by link or by the group's
 * memberQuery) with the policy and binding that give it; and the whole picture — policies → principals → permissions → targets —
 * drawn for the bindings the filter leaves (up to PICTURE_LIMIT, so it stays readable at hundreds of policies) above
 * one filterable table of every binding. The org's own policies come first; the builtins (two per kind, most of a new
 * org's bindings) are folded behind a toggle.
 */
import { useMemo, useState } from "preact/hooks";
import { queryKind, selfLink, type ApiRecord, type QuerySpec, type Session } from "../api.js";
import { AccessPicture, type Grant } from "./picture.js";
import { Loading, objectHref, useLoad, VirtualTable } from "./shared.js";

interface Binding {
  permissions: string[];
  principalLinks: string[];
}

/** `all`, the target links, or the target query in one line. */
function targetsOf(policy: ApiRecord): string {
  if (policy["target"] === "all") return `every ${String(policy["targetKind"])}`;
  const parts: string[] = [...((policy["targetLinks"] as string[] | undefined) ?? [])];
  const query = policy["targetQuery"] as { spec?: { terms?: unknown[] } } | undefined;
  if (query?.spec?.terms?.length) parts.push(`query ${JSON.stringify(query.spec.terms)}`);
  return parts.join(", ") || "nothing";
}

/** Every binding of every policy, the org's own policies' first (the order of the query otherwise). */
function grantsOf(policies: ApiRecord[]): Grant[] {
  const builtin = (policy: ApiRecord) => policy.origin === "builtin";
  const ordered = [...policies.filter((p) => !builtin(p)), ...policies.filter(builtin)];
  return ordered.flatMap((policy) =>
    ((policy["bindings"] as Binding[] | undefined) ?? []).map((binding) => ({
      policy: policy.name,
      policyLink: selfLink(policy),
      builtin: builtin(policy),
      targetKind: String(policy["targetKind"]),
      targets: targetsOf(policy),
      permissions: binding.permissions,
      principals: binding.principalLinks,
    })),
  );
}

export function AccessView({ session, principal }: { session: Session; principal: string }) {
  const data = useLoad(async () => {
    const [policies, groups, accounts, users] = await Promise.all(
      ["policy", "group", "serviceaccount", "user"].map((kind) => queryKind(session, kind).catch(() => [])),
    );
    return {
      grants: grantsOf(policies ?? []),
      groups: groups ?? [],
      principals: [...(groups ?? []), ...(accounts ?? []), ...(users ?? [])],
    };
  }, [session.token]);
  const [filter, setFilter] = useState("");
  const [withBuiltins, setWithBuiltins] = useState(false);
  const shown = useMemo(() => {
    const text = filter.trim().toLowerCase();
    const grants = (data.value?.grants ?? []).filter((grant) => withBuiltins || !grant.builtin);
    if (text === "") return grants;
    return grants.filter((grant) =>
      [grant.policy, grant.targetKind, grant.targets, ...grant.permissions, ...grant.principals].some((value) =>
        value.toLowerCase().includes(text),
      ),
    );
  }, [data.value, filter, withBuiltins]);
  if (!data.value) return <Loading error={data.error} label="policies" />;
  const { grants, groups, principals } = data.value;
  const builtins = grants.filter((grant) => grant.builtin).length;
  const title =
    `${shown.length} of ${grants.length} bindings` +
    (withBuiltins || builtins === 0 ? "" : ` (${builtins} of builtin policies folded)`);
  return (
    <section>
      <h1>Who can do what</h1>
      <label>
        Principal{" "}
        <select
          name="principal"
          value={principal}
          onChange={(event) => (location.hash = `#/access/${encodeURIComponent(event.currentTarget.value)}`)}
        >
          <option value="">(choose a principal)</option>
          {principals.map((record) => (
            <option key={selfLink(record)} value={selfLink(record)}>
              {record.kind} {record.name}
            </option>
          ))}
        </select>
      </label>
      {principal && <PrincipalGrants session={session} principal={principal} grants={grants} groups={groups} />}
      <h2>Policies → principals → permissions → targets</h2>
      <div class="filter">
        <label>
          Filter <input name="policy-filter" value={filter} onInput={(e) => setFilter(e.currentTarget.value)} />
        </label>
        <label>
          <input
            type="checkbox"
            name="builtins"
            checked={withBuiltins}
            onChange={(event) => setWithBuiltins(event.currentTarget.checked)}
          />{" "}
          Show the builtin policies ({builtins} bindings)
        </label>
      </div>
      <p class="count">{title}</p>
      <AccessPicture grants={shown} org={session.org} />
      <VirtualTable
        label="Policy bindings"
        rows={shown}
        rowHeight={30}
        columns={[
          { title: "Policy", width: "1.4fr", cell: (g: Grant) => <PolicyName grant={g} /> },
          { title: "Permissions", width: "1fr", cell: (g: Grant) => g.permissions.join(", ") },
          { title: "Principals", width: "2fr", cell: (g: Grant) => g.principals.join(", ") },
          { title: "Targets", width: "2fr", cell: (g: Grant) => g.targets },
        ]}
      />
    </section>
  );
}

/** A policy's name, a link to it, marked when it is a builtin. */
function PolicyName({ grant }: { grant: Grant }) {
  return (
    <>
      <a href={objectHref(grant.policyLink)}>{grant.policy}</a>
      {grant.builtin && (
        <>
          {" "}
          <span class="badge">builtin</span>
        </>
      )}
    </>
  );
}

/**
 * The groups `principal` belongs to: by `memberLinks`, and for a user by a group's `memberQuery` (the API evaluates
 * the query; the console only asks it, through the query endpoint, whether the principal is among the users it finds).
 */
async function groupsOf(session: Session, principal: string, groups: ApiRecord[]): Promise<string[]> {
  const isUser = /\/user\/[^/]+$/.test(principal);
  const member = await Promise.all(
    groups.map(async (group) => {
      if (((group["memberLinks"] as string[] | undefined) ?? []).includes(principal)) return true;
      const query = group["memberQuery"] as { spec?: QuerySpec } | undefined;
      if (!isUser || !query) return false;
      const users = await queryKind(session, "user", query.spec ?? {}).catch(() => []);
      return users.some((user) => selfLink(user) === principal);
    }),
  );
  return groups.filter((_, index) => member[index]).map(selfLink);
}

/** The principal's grants: bindings naming it, or a group it belongs to. */
function PrincipalGrants({
  session,
  principal,
  grants,
  groups,
}: {
  session: Session;
  principal: string;
  grants: Grant[];
  groups: ApiRecord[];
}) {
  const membership = useLoad(() => groupsOf(session, principal, groups), [principal, groups]);
  if (!membership.value) return <Loading error={membership.error} label="group memberships" />;
  const memberOf = membership.value;
  const through = (grant: Grant) =>
    grant.principals.includes(principal) ? "directly" : `group ${grant.principals.find((p) => memberOf.includes(p))}`;
  const mine = grants.filter((grant) => grant.principals.some((p) => p === principal || memberOf.includes(p)));
  return (
    <>
      <h2>
        Grants of <a href={objectHref(principal)}>{principal}</a>
      </h2>
      <p>Member of: {memberOf.length ? memberOf.join(", ") : "no group"}</p>
      <table aria-label="Grants of the principal">
        <thead>
          <tr>
            <th>Kind</th>
            <th>Targets</th>
            <th>Permissions</th>
            <th>Policy</th>
            <th>Through</th>
          </tr>
        </thead>
        <tbody>
          {mine.map((grant) => (
            <tr key={grant.policyLink + grant.permissions.join()}>
              <td>{grant.targetKind}</td>
              <td>{grant.targets}</td>
              <td>{grant.permissions.join(", ")}</td>
              <td>
                <PolicyName grant={grant} />
              </td>
              <td>{through(grant)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}
