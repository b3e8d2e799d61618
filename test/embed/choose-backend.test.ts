/** WATCHKEEPER_EMBEDDINGS* from the environment to an embedder, through the real config parser. */
import { describe, expect, it } from 'vitest';

import { loadConfig } from '../../src/config/index.js';
import { createEmbedder } from '../../src/embed/create.js';

const embedderFor = (env: Record<string, string>) => createEmbedder(loadConfig(env).embeddings);

describe('choosing the embedding backend', () => {
  it('is the local model by default, with a 10 s timeout', async () => {
    const config = loadConfig({});
    expect(config.embeddings).toEqual({
      backend: 'local',
      url: null,
      model: null,
      key: null,
      timeoutMs: 10_000,
    });
    const e = createEmbedder(config.embeddings)!;
    expect([e.backend, e.model, e.dimension]).toEqual(['local', 'use-lite-512', 512]);
    await e.close();
  });

  it('is nothing when off: callers rank lexically', () => {
    expect(embedderFor({ WATCHKEEPER_EMBEDDINGS: 'off' })).toBeNull();
  });

  it('reads every variable, also under the CLAUDEOPS_ names', () => {
    const config = loadConfig({
      CLAUDEOPS_EMBEDDINGS: 'ollama',
      WATCHKEEPER_EMBEDDINGS_URL: 'http://gpu-box:11434',
      CLAUDEOPS_EMBEDDINGS_MODEL: 'mxbai-embed-large',
      WATCHKEEPER_EMBEDDINGS_TIMEOUT: '2500ms',
    });
    expect(config.embeddings).toEqual({
      backend: 'ollama',
      url: 'http://gpu-box:11434',
      model: 'mxbai-embed-large',
      key: null,
      timeoutMs: 2500,
    });
    const e = createEmbedder(config.embeddings)!;
    expect([e.backend, e.model, e.dimension]).toEqual(['ollama', 'mxbai-embed-large', null]);
  });

  it('defaults the model of each remote backend', () => {
    expect(embedderFor({ WATCHKEEPER_EMBEDDINGS: 'ollama' })!.model).toBe('nomic-embed-text');
    expect(
      embedderFor({ WATCHKEEPER_EMBEDDINGS: 'openai', WATCHKEEPER_EMBEDDINGS_KEY: 'sk-x' })!.model,
    ).toBe('text-embedding-3-small');
  });

  it('stops start-up on a bad value, naming the variable', () => {
    expect(() => loadConfig({ WATCHKEEPER_EMBEDDINGS: 'fastembed' })).toThrow(
      expect.objectContaining({
        code: 'config_invalid',
        message: expect.stringMatching(/^WATCHKEEPER_EMBEDDINGS="fastembed": /),
      }),
    );
    expect(() => loadConfig({ WATCHKEEPER_EMBEDDINGS_URL: '127.0.0.1:11434' })).toThrow(
      'WATCHKEEPER_EMBEDDINGS_URL="127.0.0.1:11434": expected an http:// or https:// URL',
    );
    expect(() => loadConfig({ WATCHKEEPER_EMBEDDINGS_TIMEOUT: 'soon' })).toThrow(
      /^WATCHKEEPER_EMBEDDINGS_TIMEOUT="soon": expected a duration/,
    );
  });

  it('refuses another model for the local backend', () => {
    expect(() => embedderFor({ WATCHKEEPER_EMBEDDINGS_MODEL: 'all-MiniLM-L6-v2' })).toThrow(
      expect.objectContaining({
        code: 'config_invalid',
        message: expect.stringMatching(
          /^WATCHKEEPER_EMBEDDINGS_MODEL="all-MiniLM-L6-v2": the local backend has one model, use-lite-512/,
        ),
      }),
    );
  });

  it('needs a key for api.openai.com, but not for another OpenAI-compatible server', () => {
    expect(() => embedderFor({ WATCHKEEPER_EMBEDDINGS: 'openai' })).toThrow(
      expect.objectContaining({
        code: 'config_invalid',
        message: expect.stringMatching(/^WATCHKEEPER_EMBEDDINGS_KEY is missing/),
      }),
    );
    expect(
      embedderFor({
        WATCHKEEPER_EMBEDDINGS: 'openai',
        WATCHKEEPER_EMBEDDINGS_URL: 'http://127.0.0.1:1234/v1',
        WATCHKEEPER_EMBEDDINGS_MODEL: 'nomic-embed-text-v1.5',
      })!.backend,
    ).toBe('openai');
  });
});
