/**
 * `--provider native` for an unchanged program, used by the Automation-API driver (driver.ts): the
 * program's `cpln-pulumi` resolves to its dynamic SDK with every resource class swapped for its native twin.
 */
import Module from "node:module";

const sdkPackage = "cpln-pulumi";

interface LoaderInternals {
  _load(request: string, parent: Module | undefined, isMain: boolean): unknown;
}

/**
 * Makes the program's `cpln-pulumi` the native classes: the program's own dynamic SDK with every export that
 * `cpln-pulumi/native` also has (the resource classes: same names, same args) replaced by the native one, so an
 * unchanged program registers `cpln-native:index:<Type>` resources. Everything else (functions, types, helpers) is
 * the dynamic SDK's.
 */
export function useNativeClasses(programRequire: NodeJS.Require): void {
  const dynamicSdk = programRequire(sdkPackage) as Record<string, unknown>;
  const nativeSdk = programRequire(`${sdkPackage}/native`) as Record<string, unknown>;
  const merged: Record<string, unknown> = { __esModule: true };
  for (const key of Object.keys(dynamicSdk)) merged[key] = key in nativeSdk ? nativeSdk[key] : dynamicSdk[key];
  const loader = Module as unknown as LoaderInternals;
  const load = loader._load;
  loader._load = function (request, parent, isMain) {
    return request === sdkPackage ? merged : load.call(this, request, parent, isMain);
  };
}
