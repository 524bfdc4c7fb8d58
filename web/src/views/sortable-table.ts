// A table of heads sortable by any column, as the head tables (head-table.ts, encoder-head-table.ts) show
// them: the order, and a header row of buttons that say which column sorts and which way.
import { el } from '../ui/text';

export interface SortColumn<T> {
  key: string;
  label: string;
  title: string;
  value: (row: T) => number | string;
  format: (row: T) => string;
}

export interface SortOrder {
  key: string;
  descending: boolean;
}

/** `rows` ordered by the column `order.key`; ties by layer, then head. */
export function sortHeads<T extends { layer: number; head: number }>(rows: readonly T[], columns: readonly SortColumn<T>[], order: SortOrder): T[] {
  const column = columns.find((c) => c.key === order.key) ?? columns[0];
  return [...rows].sort((a, b) => {
    const [x, y] = [column.value(a), column.value(b)];
    const by = typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y));
    return (order.descending ? -by : by) || a.layer - b.layer || a.head - b.head;
  });
}

/**
 * The header: `leading` cells, then a sort button per column (▴/▾ on the sorting one). A click sorts by its
 * column (again: the other way) and calls `sorted` with the new order; the caller draws the table again and
 * may put the focus back with focusSortButton.
 */
export function sortableHeader<T>(columns: readonly SortColumn<T>[], order: SortOrder, sorted: (order: SortOrder) => void, leading: HTMLElement[] = []): HTMLTableSectionElement {
  const row = el('tr');
  row.append(...leading);
  for (const c of columns) {
    const th = el('th', c.key === 'role' ? '' : 'num');
    th.setAttribute('aria-sort', c.key === order.key ? (order.descending ? 'descending' : 'ascending') : 'none');
    const button = el('button', 'sort-button', c.label + (c.key === order.key ? (order.descending ? ' ▾' : ' ▴') : ''));
    button.type = 'button';
    button.dataset.sort = c.key;
    button.title = `${c.title}; click to sort`;
    button.addEventListener('click', () => sorted({ key: c.key, descending: order.key === c.key ? !order.descending : false }));
    th.append(button);
    row.append(th);
  }
  const head = el('thead');
  head.append(row);
  return head;
}

/** Puts the keyboard back on the sort button of `key` after the table was drawn again. */
export const focusSortButton = (root: HTMLElement, key: string) => root.querySelector<HTMLButtonElement>(`button.sort-button[data-sort="${key}"]`)?.focus();
