/**
 * Preloaded (`NODE_OPTIONS=--require …`) into a process the bench profiles but does not start itself with node flags
 * (the dynamic-provider host, the native plugin and the thinnest provider; `--cpu-prof` is not allowed in
 * NODE_OPTIONS): records a CPU profile with the inspector and writes it to
 * `$BENCH_PROFILE_DIR/<$BENCH_PROFILE_NAME or host>-<pid>.cpuprofile` when the process is stopped with SIGTERM or
 * SIGINT (the Pulumi engine stops its plugins with SIGINT). With `BENCH_PROFILE_START=SIGUSR2` recording starts only
 * when the process receives SIGUSR2, so that a benchmark can profile one phase (the native bench: its measured update
 * rounds, not the creates and the warm-up).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector";
import path from "node:path";

const dir = process.env["BENCH_PROFILE_DIR"];
if (dir) {
  const name = process.env["BENCH_PROFILE_NAME"] || "host";
  const session = new Session();
  session.connect();
  let started = false;
  const start = () => {
    if (started) return;
    started = true;
    session.post("Profiler.enable", () => session.post("Profiler.start"));
  };
  if (process.env["BENCH_PROFILE_START"] === "SIGUSR2") process.on("SIGUSR2", start);
  else start();
  const stop = () => {
    if (!started) process.exit(0);
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
