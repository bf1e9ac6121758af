/**
 * Preloaded (`NODE_OPTIONS=--require …`) into a process the bench profiles but does not start itself with node flags
 * (the dynamic-provider host; `--cpu-prof` is not allowed in NODE_OPTIONS): records a CPU profile with the inspector
 * and writes it to `$BENCH_PROFILE_DIR/<name>-<pid>.cpuprofile` when the process is stopped with SIGTERM or SIGINT (the
 * Pulumi engine stops its plugins with SIGINT); `<name>` is `$BENCH_PROFILE_NAME`, default `host`.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector";
import path from "node:path";

const dir = process.env["BENCH_PROFILE_DIR"];
if (dir) {
  const session = new Session();
  session.connect();
  session.post("Profiler.enable", () => session.post("Profiler.start"));
  const name = process.env["BENCH_PROFILE_NAME"] ?? "host";
  const stop = () => {
    session.post("Profiler.stop", (error, result) => {
      if (!error) {
        mkdirSync(dir, { recursive: true });
        writeFileSync(path.join(dir, `${name}-${process.pid}.cpuprofile`), JSON.stringify(result.profile));
      }
      process.exit(0);
    });
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}
