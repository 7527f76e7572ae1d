import { Fragment, type ComponentChildren } from 'preact';
import { Empty } from './ui.tsx';

export interface Column<T> {
  header: ComponentChildren;
  cell: (row: T) => ComponentChildren;
  /** Figures: right-aligned in tabular digits (class "num"). */
  numeric?: boolean;
  /** The cell names its row (`<th scope="row">`), as in a table of counts. */
  rowHeader?: boolean;
  /** Classes the row's value decides (a negative amount in red). */
  tone?: (row: T) => string;
}

function Cell<T>({ column, row }: { column: Column<T>; row: T }) {
  const classes = [column.tone?.(row), column.numeric ? 'num' : ''].filter(Boolean).join(' ') || undefined;
  return column.rowHeader ? (
    <th scope="row" class={classes}>
      {column.cell(row)}
    </th>
  ) : (
    <td class={classes}>{column.cell(row)}</td>
  );
}

/**
 * Every table of rows the dashboard draws: a header row of column names, one row per item and, when `detail`
 * answers something for an item, a full-width row under it. Without rows it shows `empty` when given.
 */
export function DataTable<T>({
  columns,
  rows,
  rowKey,
  empty,
  head,
  detail,
  testId,
  class: tableClass,
  wrapClass,
}: {
  columns: Array<Column<T>>;
  rows: readonly T[];
  rowKey: (row: T, index: number) => string | number;
  empty?: ComponentChildren;
  /** More header rows under the column names. */
  head?: ComponentChildren;
  detail?: (row: T) => ComponentChildren;
  testId?: string;
  class?: string;
  wrapClass?: string;
}) {
  if (rows.length === 0 && empty !== undefined) return <Empty>{empty}</Empty>;
  return (
    <div class={wrapClass ? `table-wrap ${wrapClass}` : 'table-wrap'}>
      <table class={tableClass} data-testid={testId}>
        <thead>
          <tr>
            {columns.map((column, i) => (
              <th key={i} scope="col">
                {column.header}
              </th>
            ))}
          </tr>
          {head}
        </thead>
        <tbody>
          {rows.map((row, index) => {
            const more = detail?.(row);
            return (
              <Fragment key={rowKey(row, index)}>
                <tr>
                  {columns.map((column, i) => (
                    <Cell key={i} column={column} row={row} />
                  ))}
                </tr>
                {more && (
                  <tr>
                    <td colSpan={columns.length}>{more}</td>
                  </tr>
                )}
              </Fragment>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
