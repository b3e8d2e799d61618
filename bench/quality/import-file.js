/**
 * The bench's documents as a `watchkeeper-memory/1` file, imported through `POST
 * /api/v1/memories/import` (what `watchkeeper import` and the dashboard's Import do: the memory
 * service judges each record, and embeds it with the model the serve has loaded). Each record's
 * source reference names the document, so a search result read from the JSON output says which
 * document it is. Creation times are a second apart and recent: every record is its own (the
 * import's key includes the time) and none is weighted by age over another.
 */
export function importFile(docs, now = Date.now()) {
  const start = now - 86_400_000;
  const header = {
    format: 'watchkeeper-memory/1',
    exported_at: new Date(now).toISOString(),
    filter: {},
    memories: docs.length,
    services: 0,
  };
  const lines = docs.map((d, i) =>
    JSON.stringify({
      type: 'memory',
      text: d.text,
      service: d.service,
      category: d.category ?? 'behavior',
      confidence: 0.7,
      created_at: new Date(start + i * 1000).toISOString(),
      provenance: { source: 'import', source_ref: d.ref },
    }),
  );
  return `${[JSON.stringify(header), ...lines].join('\n')}\n`;
}

/** Imports `docs`; fails unless every one was created. */
export async function importDocs(serve, docs) {
  const report = await serve.api(
    'POST',
    '/memories/import',
    importFile(docs),
    'application/x-ndjson',
  );
  if (report.counts.created !== docs.length)
    throw new Error(
      `import created ${report.counts.created} of ${docs.length}: ${JSON.stringify(report.counts)}`,
    );
  return report;
}
