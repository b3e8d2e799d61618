/**
 * The results table printed at the end of a run. Rows that carry `heldOut` (figures measured on
 * a development split and a held-out one) give the table a held-out column beside the value.
 */

function formatValue(value) {
  if (value === null || value === undefined) return '-';
  return typeof value === 'number'
    ? value.toLocaleString('en-US', { maximumFractionDigits: 3 })
    : String(value);
}

export function formatTable(rows) {
  const split = rows.some((r) => 'heldOut' in r);
  const header = {
    name: 'name',
    value: split ? 'value/dev' : 'value',
    heldOut: 'held-out',
    unit: 'unit',
    notes: 'notes',
  };
  const cells = [
    header,
    ...rows.map((r) => ({
      ...r,
      value: formatValue(r.value),
      heldOut: 'heldOut' in r ? formatValue(r.heldOut) : '',
    })),
  ];
  const width = (key) => Math.max(...cells.map((c) => String(c[key]).length));
  const w = {
    name: width('name'),
    value: width('value'),
    heldOut: width('heldOut'),
    unit: width('unit'),
  };
  const column = (c) => (split ? `${String(c.heldOut).padStart(w.heldOut)}  ` : '');
  const line = (c) =>
    `${c.name.padEnd(w.name)}  ${String(c.value).padStart(w.value)}  ${column(c)}${c.unit.padEnd(w.unit)}  ${c.notes}`.trimEnd();
  const rule = [w.name, w.value, ...(split ? [w.heldOut] : []), w.unit, 5]
    .map((n) => '-'.repeat(n))
    .join('  ');
  return [line(header), rule, ...cells.slice(1).map(line)].join('\n');
}
