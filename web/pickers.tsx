// The selects more than one screen shows.
import { get, type Page } from './api.ts';
import type { LeadList } from './types.ts';
import { useLoad } from './ui.tsx';
import { EMAIL_RESULTS } from '../src/domain/lead.ts';

/** The organization's lists a picker offers (the first 100). */
export const usePickableLists = () => useLoad(() => get<Page<LeadList>>('/api/lists?limit=100'), []);

/** "List": one option per list, "name (N leads)"; uncontrolled with `defaultValue`, controlled with `value`. */
export function ListSelect({
  lists,
  name,
  value,
  defaultValue,
  onPick,
}: {
  lists: LeadList[];
  name?: string;
  value?: string;
  defaultValue?: string;
  onPick?: (listId: string) => void;
}) {
  return (
    <label>
      List
      <select
        name={name}
        required
        value={value}
        defaultValue={defaultValue}
        onChange={onPick && ((event) => onPick((event.currentTarget as HTMLSelectElement).value))}
      >
        {lists.map((list) => (
          <option key={list.id} value={list.id}>
            {list.name} ({list.leadCount} leads)
          </option>
        ))}
      </select>
    </label>
  );
}

/** A filter on a verification result: all, or one of the four results. */
export function ResultSelect({ value, onPick }: { value: string; onPick: (result: string) => void }) {
  return (
    <select value={value} onChange={(event) => onPick((event.currentTarget as HTMLSelectElement).value)}>
      <option value="">All results</option>
      {EMAIL_RESULTS.map((result) => (
        <option key={result} value={result}>
          {result}
        </option>
      ))}
    </select>
  );
}
