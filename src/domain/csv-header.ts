/** Header cell → canonical key: case, spaces, dashes and underscores do not matter. */
export const canonicalHeader = (cell: string) => cell.trim().toLowerCase().replace(/[\s_\-.]+/g, '');

/** Maps each column index to a field by alias; unknown columns are ignored. */
export function mapHeader<F extends string>(header: string[], aliases: Record<F, readonly string[]>): Map<number, F> {
  const lookup = new Map<string, F>();
  for (const [field, names] of Object.entries(aliases) as Array<[F, readonly string[]]>) {
    for (const name of names) lookup.set(canonicalHeader(name), field);
  }
  const mapping = new Map<number, F>();
  const taken = new Set<F>();
  header.forEach((cell, index) => {
    const field = lookup.get(canonicalHeader(cell));
    if (field && !taken.has(field)) {
      mapping.set(index, field);
      taken.add(field);
    }
  });
  return mapping;
}

export function rowToObject<F extends string>(row: string[], mapping: Map<number, F>): Partial<Record<F, string>> {
  const out: Partial<Record<F, string>> = {};
  for (const [index, field] of mapping) {
    const value = row[index]?.trim();
    if (value) out[field] = value;
  }
  return out;
}
