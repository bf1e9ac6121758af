/**
 * What a package schema must never say of a property: a `const`, which Pulumi's SDK generators fill in as a fixed
 * value on every object (the Python SDK set `target = 'all'` on every Policy, granting on all objects of its kind),
 * or a `default`, which they send whenever the program leaves the property out. Either changes what the program
 * wrote. The provider's own settings are the one exception: their defaults (the endpoint, a timeout) are where and
 * how long calls go, never part of an object.
 */

/** Provider settings whose documented default an SDK may fill in (`config.variables.X`, `provider.inputProperties.X`). */
const providerDefaults = new Set(["endpoint", "timeoutSeconds"]);

/** Every `const` and every non-provider `default` of a property in `schema`, as `path: what`. */
export function schemaPropertyIssues(schema: unknown): string[] {
  const issues: string[] = [];
  const visit = (node: unknown, path: string[]): void => {
    if (Array.isArray(node)) return node.forEach((item, index) => visit(item, [...path, String(index)]));
    if (node === null || typeof node !== "object") return;
    const parent = path[path.length - 2];
    const isProperty = parent === "properties" || parent === "inputProperties" || parent === "variables";
    const record = node as Record<string, unknown>;
    if (isProperty && "const" in record) issues.push(`${path.join(".")}: const ${JSON.stringify(record.const)}`);
    const providerSetting = (path[0] === "config" || path[0] === "provider") && providerDefaults.has(path.at(-1)!);
    if (isProperty && "default" in record && !providerSetting) {
      issues.push(`${path.join(".")}: default ${JSON.stringify(record.default)}`);
    }
    for (const [key, value] of Object.entries(record)) visit(value, [...path, key]);
  };
  visit(schema, []);
  return issues;
}
