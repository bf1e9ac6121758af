import type { ComponentChildren } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";

/** Loads once per change of `deps`; shows errors and a loading line. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): { value?: T; error?: string; reload: () => void } {
  const [state, setState] = useState<{ value?: T; error?: string }>({});
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    setState({});
    load().then(
      (value) => live && setState({ value }),
      (error: unknown) => live && setState({ error: (error as Error).message }),
    );
    return () => {
      live = false;
    };
  }, [...deps, tick]);
  return { ...state, reload: () => setTick((t) => t + 1) };
}

export function Loading({ error, label }: { error?: string; label: string }) {
  return error ? (
    <p role="alert" class="error">
      {error}
    </p>
  ) : (
    <p aria-busy="true">Loading {label}…</p>
  );
}

export const objectHref = (link: string): string => `#/object/${encodeURIComponent(link)}`;

/**
 * A table that renders only the rows in view (fixed row height), so ten thousand rows cost what thirty do.
 * Rows are links or buttons the keyboard reaches in order.
 */
export function VirtualTable<T>(props: {
  rows: T[];
  columns: { title: string; width: string; cell: (row: T) => ComponentChildren }[];
  label: string;
  rowHeight?: number;
  height?: number;
}) {
  const rowHeight = props.rowHeight ?? 30;
  const height = props.height ?? 560;
  const [top, setTop] = useState(0);
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (box.current) box.current.scrollTop = 0;
    setTop(0);
  }, [props.rows]);
  const first = Math.max(0, Math.floor(top / rowHeight) - 10);
  const last = Math.min(props.rows.length, Math.ceil((top + height) / rowHeight) + 10);
  const template = props.columns.map((column) => column.width).join(" ");
  return (
    <div role="table" aria-label={props.label} aria-rowcount={props.rows.length} class="vtable">
      <div role="row" class="vrow head" style={{ gridTemplateColumns: template }}>
        {props.columns.map((column) => (
          <span role="columnheader" key={column.title}>
            {column.title}
          </span>
        ))}
      </div>
      <div
        ref={box}
        class="vbody"
        style={{ height: `${Math.min(height, props.rows.length * rowHeight + 2)}px` }}
        onScroll={(event) => setTop(event.currentTarget.scrollTop)}
      >
        <div style={{ height: `${props.rows.length * rowHeight}px`, position: "relative" }}>
          {props.rows.slice(first, last).map((row, offset) => (
            <div
              role="row"
              aria-rowindex={first + offset + 1}
              class="vrow"
              key={first + offset}
              style={{
                gridTemplateColumns: template,
                top: `${(first + offset) * rowHeight}px`,
                height: `${rowHeight}px`,
              }}
            >
              {props.columns.map((column) => (
                <span role="cell" key={column.title}>
                  {column.cell(row)}
                </span>
              ))}
            </div>
          ))}
        </div>
      </div>
    </div>
  );
}
