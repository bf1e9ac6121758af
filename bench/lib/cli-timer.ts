/**
 * A `pulumi` that times each of its runs, for bench/app.ts: one Automation API call is several CLI runs (`stack.up`
 * runs `pulumi up`, then `stack output` twice and `stack history` for the outputs and the summary,
 * @pulumi/pulumi/automation/stack.js), and only the first is the engine command a CLI user runs. The directory this
 * makes is a `bin/` beside the engine's: every file a link to the engine's, but `pulumi`, a bash script that runs the
 * real one and appends `<start> <end> <exit code> <first two args>` (bash's EPOCHREALTIME, no process spawned) to a
 * log. The engine finds its language hosts next to its own executable, which is still the real one.
 *
 * With a `logDir` (bench/app.ts: `CPLN_BENCH_APP_LOG_DIR`) every `up` and `destroy` also runs with the engine's own
 * log, `-v=9 --logtostderr --logflow`, its stderr (JSON lines with timestamps) written to
 * `<logDir>/<start µs>-<adapter>-<command>.log` (the adapter: `CPLN_BENCH_APP_ADAPTER` of the driver's environment) for
 * bench/log-phases.ts. That logging slows the engine: figures of such a run
 * are for finding where the time goes, not for the tables.
 */
import * as fs from "node:fs";
import path from "node:path";

export interface CliRun {
  /** The command: its first two arguments (`up --yes`, `stack output`, `destroy --yes`). */
  command: string;
  seconds: number;
  exitCode: number;
}

export interface CliTimer {
  /** The timed `bin/` (give its parent as the Automation API's `root`). */
  binDir: string;
  /** The runs logged since the last call, in the order they ended; the log is emptied. */
  take(): CliRun[];
}

export function cliTimer(realBinDir: string, dir: string, logDir?: string): CliTimer {
  const binDir = path.join(dir, "bin");
  fs.mkdirSync(binDir, { recursive: true });
  for (const file of fs.readdirSync(realBinDir)) {
    if (file !== "pulumi") fs.symlinkSync(path.join(realBinDir, file), path.join(binDir, file));
  }
  const log = path.join(dir, "cli-runs.log");
  fs.writeFileSync(log, "");
  const quote = (text: string): string => `'${text.replace(/'/g, `'\\''`)}'`;
  const real = quote(path.join(realBinDir, "pulumi"));
  const run = logDir
    ? `if [ "$1" = up ] || [ "$1" = destroy ]; then\n` +
      `  ${real} "$@" -v=9 --logtostderr --logflow 2> ${quote(logDir)}/"\${start/[.,]/}-\${CPLN_BENCH_APP_ADAPTER:-cli}-$1.log"\n` +
      `else\n  ${real} "$@"\nfi\n`
    : `${real} "$@"\n`;
  if (logDir) fs.mkdirSync(logDir, { recursive: true });
  fs.writeFileSync(
    path.join(binDir, "pulumi"),
    "#!/usr/bin/env bash\nstart=$EPOCHREALTIME\n" +
      `${run}code=$?\n` +
      `printf '%s %s %s %s %s\\n' "$start" "$EPOCHREALTIME" "$code" "$1" "$2" >> ${quote(log)}\nexit $code\n`,
    { mode: 0o755 },
  );
  return {
    binDir,
    take() {
      const lines = fs.readFileSync(log, "utf8").split("\n").filter(Boolean);
      fs.writeFileSync(log, "");
      return lines.map((line) => {
        // EPOCHREALTIME is written with the locale's decimal separator.
        const [start, end, code, ...args] = line.split(" ");
        const time = (text = ""): number => Number(text.replace(",", "."));
        return { command: args.join(" ").trim(), seconds: time(end) - time(start), exitCode: Number(code) };
      });
    },
  };
}
