/**
 * A volume set's snapshot schedule (`spec.snapshots.schedule`): a five-field cron expression whose minute is a single
 * number, so that snapshots run at most hourly (reference/control-plane-api.md §4).
 */

const cronFieldRanges: readonly { name: string; min: number; max: number; names?: readonly string[] }[] = [
  { name: "minute", min: 0, max: 59 },
  { name: "hour", min: 0, max: 23 },
  { name: "day of month", min: 1, max: 31 },
  {
    name: "month",
    min: 1,
    max: 12,
    names: ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"],
  },
  { name: "day of week", min: 0, max: 7, names: ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"] },
];

function cronValue(token: string, range: (typeof cronFieldRanges)[number]): number | undefined {
  const index = range.names?.indexOf(token.toUpperCase()) ?? -1;
  if (index >= 0) return range.min + index;
  if (!/^\d+$/.test(token)) return undefined;
  const value = Number(token);
  return value >= range.min && value <= range.max ? value : undefined;
}

/**
 * Why `expression` is not an acceptable snapshot schedule, or undefined when it is: five cron fields, and the minute
 * a single number so that snapshots run at most hourly.
 */
export function cronProblem(expression: string): string | undefined {
  const fields = expression.trim().split(/\s+/);
  if (fields.length !== 5) return `must be a cron expression with 5 fields (got ${fields.length})`;
  const minute = fields[0] as string;
  if (!/^\d+$/.test(minute) || Number(minute) > 59) {
    return "the minute field must be a single number from 0 to 59 (snapshots run at most hourly)";
  }
  for (let i = 1; i < 5; i++) {
    const range = cronFieldRanges[i] as (typeof cronFieldRanges)[number];
    for (const part of (fields[i] as string).split(",")) {
      const [base = "", step, ...rest] = part.split("/");
      if (rest.length > 0 || (step !== undefined && !/^[1-9]\d*$/.test(step))) {
        return `the ${range.name} field has an invalid step in '${part}'`;
      }
      if (base === "*") continue;
      const bounds = base.split("-");
      if (bounds.length > 2 || bounds.some((b) => cronValue(b, range) === undefined)) {
        return `the ${range.name} field '${part}' is not a value or range within ${range.min}-${range.max}`;
      }
    }
  }
  return undefined;
}
