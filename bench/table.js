/** The results table printed at the end of a run. */

function formatValue(value) {
  if (value === null || value === undefined) return '-';
  return typeof value === 'number'
    ? value.toLocaleString('en-US', { maximumFractionDigits: 3 })
    : String(value);
}

export function formatTable(rows) {
  const header = { name: 'name', value: 'value', unit: 'unit', notes: 'notes' };
  const cells = [header, ...rows.map((r) => ({ ...r, value: formatValue(r.value) }))];
  const width = (key) => Math.max(...cells.map((c) => String(c[key]).length));
  const w = { name: width('name'), value: width('value'), unit: width('unit') };
  const line = (c) =>
    `${c.name.padEnd(w.name)}  ${String(c.value).padStart(w.value)}  ${c.unit.padEnd(w.unit)}  ${c.notes}`.trimEnd();
  const rule = `${'-'.repeat(w.name)}  ${'-'.repeat(w.value)}  ${'-'.repeat(w.unit)}  -----`;
  return [line(header), rule, ...cells.slice(1).map(line)].join('\n');
}
