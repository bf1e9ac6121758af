/**
 * The access picture: policies → principals → permissions → targets, one column each. Every label sits in a box of its
 * own row in its own column, cut to the box's measured width, so no two labels can be drawn over each other however
 * many bindings converge on one principal or target (drawn on the lines, as before, they piled up unreadably).
 */
import { objectHref } from "./shared.js";

export interface Grant {
  policy: string;
  policyLink: string;
  /** The policy is one of the org's builtins (origin `builtin`). */
  builtin: boolean;
  targetKind: string;
  targets: string;
  permissions: string[];
  principals: string[];
}

/** The most bindings the picture draws; past it, the filter narrows them (the table below always holds them all). */
export const PICTURE_LIMIT = 60;
const NODE_HEIGHT = 24;
const ROW_PITCH = NODE_HEIGHT + 10;
const PADDING = 8;
/** Room above the boxes for the column headings. */
const HEADING = 22;
/** The font of every label (app.css sets the same on `.picture text`): what the labels are measured in. */
const LABEL_FONT = "12px system-ui, sans-serif";
const COLUMNS = [
  { role: "policy", heading: "Policies", x: 0, width: 230 },
  { role: "principal", heading: "Principals", x: 290, width: 290 },
  { role: "permissions", heading: "Permissions", x: 640, width: 170 },
  { role: "target", heading: "Targets", x: 870, width: 290 },
] as const;
const WIDTH = COLUMNS[3].x + COLUMNS[3].width;

let measureContext: CanvasRenderingContext2D | null | undefined;

/** `text` cut (an ellipsis in the middle) to fit `width` pixels in LABEL_FONT. */
export function fitText(text: string, width: number): string {
  measureContext ??= document.createElement("canvas").getContext("2d");
  const context = measureContext;
  if (!context) return text.length > width / 8 ? `${text.slice(0, Math.floor(width / 8) - 1)}…` : text;
  context.font = LABEL_FONT;
  const fits = (candidate: string) => context.measureText(candidate).width <= width;
  if (fits(text)) return text;
  // The longest cut keeping both ends (a link's end names the object, its start the kind): binary search on length.
  let low = 0;
  let high = text.length;
  const cut = (keep: number) =>
    `${text.slice(0, Math.ceil(keep / 2))}…${text.slice(text.length - Math.floor(keep / 2))}`;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (fits(cut(middle))) low = middle;
    else high = middle - 1;
  }
  return cut(low);
}

/** `/org/<org>/group/ops` → `group/ops` (the org is the console's own); anything else as it is. */
export const shortLink = (org: string, link: string): string =>
  link
    .split(`/org/${org}/`)
    .join("")
    .replace(/^\/org\/[^/]+$/, "org");

const mean = (values: number[]): number => values.reduce((sum, value) => sum + value, 0) / values.length;

/**
 * Positions for boxes that would each be at `ideals[i]`, between `first` and `last`: in the order of their ideals, each
 * at least ROW_PITCH below the one before (a pass down, then one up from `last`), so no two overlap. There is room:
 * the picture is as tall as its longest column.
 */
function place(ideals: number[], first: number, last: number): number[] {
  const order = ideals.map((_, i) => i).sort((a, b) => ideals[a]! - ideals[b]! || a - b);
  const ys: number[] = [];
  let previous = -Infinity;
  for (const i of order) previous = ys[i] = Math.max(ideals[i]!, first, previous + ROW_PITCH);
  let next = Infinity;
  for (const i of order.reverse()) next = ys[i] = Math.min(ys[i]!, last, next - ROW_PITCH);
  return ys;
}

interface Node {
  name: string;
  label: string;
  href?: string;
}

/** Distinct names of one column, in first-seen order, each with its row. */
class Column {
  readonly nodes: Node[] = [];
  private readonly rows = new Map<string, number>();
  row(name: string, label: string, href?: string): number {
    let row = this.rows.get(name);
    if (row === undefined) {
      row = this.nodes.push(href === undefined ? { name, label } : { name, label, href }) - 1;
      this.rows.set(name, row);
    }
    return row;
  }
}

export function AccessPicture({ grants, org }: { grants: Grant[]; org: string }) {
  if (grants.length === 0) return null;
  if (grants.length > PICTURE_LIMIT)
    return (
      <p class="picture-note">
        The picture draws up to {PICTURE_LIMIT} bindings: narrow the filter to draw these {grants.length}.
      </p>
    );
  const policies = new Column();
  const principals = new Column();
  const policyEdges = new Set<string>();
  // One permission box per distinct (principal, permissions, targets): bindings of several policies that grant the
  // same share it.
  const grantsOf = new Map<string, { principal: number; permissions: string; targets: string }>();
  for (const grant of grants) {
    const policyRow = policies.row(grant.policy, grant.policy, objectHref(grant.policyLink));
    for (const principal of grant.principals) {
      const principalRow = principals.row(principal, shortLink(org, principal), objectHref(principal));
      policyEdges.add(`${policyRow}:${principalRow}`);
      const permissions = grant.permissions.join(", ");
      const key = JSON.stringify([principal, permissions, grant.targets]);
      if (!grantsOf.has(key)) grantsOf.set(key, { principal: principalRow, permissions, targets: grant.targets });
    }
  }
  // Permission boxes by principal, then by target (in the order the grants name them): fewer crossing lines.
  const targetOrder = [...new Set(grants.map((grant) => grant.targets))];
  const ordered = [...grantsOf.values()].sort(
    (a, b) => a.principal - b.principal || targetOrder.indexOf(a.targets) - targetOrder.indexOf(b.targets),
  );
  const targets = new Column();
  const boxes = ordered.map((box) => ({ ...box, target: targets.row(box.targets, shortLink(org, box.targets)) }));
  const counts = [policies.nodes.length, principals.nodes.length, boxes.length, targets.nodes.length];
  const rows = Math.max(...counts);
  const height = HEADING + rows * ROW_PITCH + 2 * PADDING - (ROW_PITCH - NODE_HEIGHT);
  const first = HEADING + PADDING + NODE_HEIGHT / 2;
  const last = first + (rows - 1) * ROW_PITCH;
  // The permission boxes packed and centred; every other box as near as it may be to the middle of the boxes it is
  // joined to (a principal beside its own permission boxes, which are consecutive), so the lines run short.
  const boxYs = boxes.map((_, row) => first + ((rows - boxes.length) * ROW_PITCH) / 2 + row * ROW_PITCH);
  const principalYs = place(
    principals.nodes.map((_, row) => mean(boxes.flatMap((box, i) => (box.principal === row ? [boxYs[i]!] : [])))),
    first,
    last,
  );
  const policyPairs = [...policyEdges].map((pair) => pair.split(":").map(Number) as [number, number]);
  const policyYs = place(
    policies.nodes.map((_, row) => mean(policyPairs.flatMap(([p, q]) => (p === row ? [principalYs[q]!] : [])))),
    first,
    last,
  );
  const targetYs = place(
    targets.nodes.map((_, row) => mean(boxes.flatMap((box, i) => (box.target === row ? [boxYs[i]!] : [])))),
    first,
    last,
  );
  const ys = [policyYs, principalYs, boxYs, targetYs];
  const y = (column: number, row: number) => ys[column]![row]!;
  const edge = (from: number, fromRow: number, to: number, toRow: number, key: string) => {
    const x1 = COLUMNS[from]!.x + COLUMNS[from]!.width;
    const x2 = COLUMNS[to]!.x;
    const [y1, y2] = [y(from, fromRow), y(to, toRow)];
    const middle = (x1 + x2) / 2;
    return <path key={key} class="edge" d={`M${x1},${y1} C${middle},${y1} ${middle},${y2} ${x2},${y2}`} />;
  };
  const node = (column: number, row: number, item: Node, kind: "node" | "grant") => {
    const { x, width, role } = COLUMNS[column]!;
    const box = (
      <g data-column={role}>
        <rect class={kind} x={x} y={y(column, row) - NODE_HEIGHT / 2} width={width} height={NODE_HEIGHT} rx={4} />
        <text class={kind === "node" ? "node-label" : "edge-label"} x={x + 8} y={y(column, row) + 4}>
          <title>{item.name}</title>
          {fitText(item.label, width - 16)}
        </text>
      </g>
    );
    const key = `${column}:${row}`;
    return item.href ? (
      <a key={key} href={item.href}>
        {box}
      </a>
    ) : (
      <g key={key}>{box}</g>
    );
  };
  return (
    <svg
      class="picture"
      role="img"
      aria-label="Access picture"
      viewBox={`0 0 ${WIDTH} ${height}`}
      width={WIDTH}
      height={height}
    >
      {COLUMNS.map(({ heading, x }) => (
        <text key={heading} class="heading" x={x} y={14}>
          {heading}
        </text>
      ))}
      {policyPairs.map(([policyRow, principalRow]) =>
        edge(0, policyRow, 1, principalRow, `p${policyRow}:${principalRow}`),
      )}
      {boxes.map((box, row) => [edge(1, box.principal, 2, row, `a${row}`), edge(2, row, 3, box.target, `b${row}`)])}
      {policies.nodes.map((item, row) => node(0, row, item, "node"))}
      {principals.nodes.map((item, row) => node(1, row, item, "node"))}
      {boxes.map((box, row) => node(2, row, { name: box.permissions, label: box.permissions }, "grant"))}
      {targets.nodes.map((item, row) => node(3, row, item, "node"))}
    </svg>
  );
}
