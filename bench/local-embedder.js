/** The local embedding model, loaded and warmed up for `use`, and closed afterwards. */
import { createEmbedder } from '../dist/embed/index.js';

export async function withLocalEmbedder(use) {
  const embedder = createEmbedder({
    backend: 'local',
    url: null,
    model: null,
    key: null,
    timeoutMs: 120_000,
  });
  try {
    await embedder.warmUp();
    return await use(embedder);
  } finally {
    await embedder.close();
  }
}
