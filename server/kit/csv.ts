// No imports: the dashboard loads it through the views that write CSV.

/** An RFC 4180 field: as it is, or quoted (inner quotes doubled) when it holds `"`, `,` or a line end. */
export function csvField(value: string | number | null): string {
  if (value === null) return "";
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}
