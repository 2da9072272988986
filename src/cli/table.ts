/** Rows as aligned columns, two spaces apart; the last column is not padded. */
export function renderColumns(rows: readonly (readonly string[])[]): string {
  const widths = rows[0]?.map((_, c) => Math.max(...rows.map((row) => row[c]?.length ?? 0))) ?? [];
  return rows
    .map((row) =>
      row.map((cell, c) => (c === row.length - 1 ? cell : cell.padEnd(widths[c] ?? 0))).join("  "),
    )
    .join("\n");
}
