import { Fragment, type ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { get, type Page, query } from './api.ts';
import { Empty, LoadFailed, Loading, Pager, useLoad } from './ui.tsx';

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
  // On a phone a row is drawn as a card and each cell shows its column's name before it (style.css).
  const label = typeof column.header === 'string' ? column.header : undefined;
  return column.rowHeader ? (
    <th scope="row" class={classes} data-label={label}>
      {column.cell(row)}
    </th>
  ) : (
    <td class={classes} data-label={label}>
      {column.cell(row)}
    </td>
  );
}

interface TableProps<T> {
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
  /**
   * How the table fits a phone: `cards` (each row a card, one cell a line after its column's name) or `columns`
   * (kept side by side, scrolling inside the box if need be: a small grid of counts, a file's preview).
   */
  phone?: 'cards' | 'columns';
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
  phone = 'cards',
}: TableProps<T>) {
  if (rows.length === 0 && empty !== undefined) return <Empty>{empty}</Empty>;
  return (
    <div class={['table-wrap', phone, wrapClass].filter(Boolean).join(' ')}>
      <table class={tableClass} data-testid={testId}>
        <thead>
          <tr>
            {columns.map((column, i) => (
              <th key={i} scope="col" class={column.numeric ? 'num' : undefined}>
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

/**
 * One page at a time of a paged collection route: `page` and `limit` go in its query with `params`, and a change
 * of either (or of `deps`) loads again. `setPage` turns pages; a caller whose filter changes sets page 1 itself.
 */
export function usePaged<T>(
  path: string,
  { limit = 20, ...params }: { limit?: number } & Record<string, string | number | undefined> = {},
  deps: unknown[] = [],
) {
  const [page, setPage] = useState(1);
  const url = `${path}${query({ page, limit, ...params })}`;
  return { ...useLoad(() => get<Page<T>>(url), [url, ...deps]), setPage };
}

/**
 * A paged collection as a table with its pager; "Loading <what>…" until the first page is there, or what went
 * wrong with a Retry button. A failed reload keeps the rows it had (the connection bar says what is going on).
 */
export function PagedTable<T>({
  paged,
  what,
  ...table
}: {
  paged: { data?: Page<T>; error: unknown; reload: () => void; setPage: (page: number) => void };
  what: string;
} & Omit<TableProps<T>, 'rows'>) {
  if (!paged.data)
    return paged.error ? <LoadFailed error={paged.error} what={what} onRetry={paged.reload} /> : <Loading what={what} />;
  return (
    <>
      <DataTable rows={paged.data.data} {...table} />
      <Pager page={paged.data} onPage={paged.setPage} />
    </>
  );
}

/** A job kind's jobs under its screen's form: the "Jobs" heading and the paged table, newest first. */
export function JobsSection<T extends { id: string }>({
  path,
  what,
  ...table
}: { path: string; what: string } & Pick<TableProps<T>, 'columns' | 'empty' | 'testId'>) {
  const jobs = usePaged<T>(path);
  return (
    <>
      <h2>Jobs</h2>
      <PagedTable paged={jobs} what={what} rowKey={(job) => job.id} {...table} />
    </>
  );
}
