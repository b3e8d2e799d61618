/**
 * The Memories page's export, import and merge: an export link carries the page's filters; an
 * import is previewed as a dry run, then confirmed (the file waits in this process meanwhile);
 * selected memories merge into the first of them.
 */
import { Hono } from 'hono';

import { AppError, isAppError } from '../../errors.js';
import type { AppEnv } from '../context.js';
import type { WebDeps } from '../deps.js';
import { firstMissing, parseIds } from '../memory-input.js';
import {
  exportResponse,
  importText,
  MAX_IMPORT_BYTES,
  pendingUploads,
} from '../memory-transfer.js';
import { isHtmx, page, partial } from '../render.js';
import { bulkIds } from './memories.js';

export function memoryTransferRoutes(deps: WebDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const uploads = pendingUploads(() => deps.clock.now());

  app.get('/memories/export', (c) => exportResponse(c, deps));

  app.get('/memories/import', (c) =>
    page(
      c,
      'pages/memory-import',
      { title: 'Import memories', nav: 'memories' },
      { maxBytes: MAX_IMPORT_BYTES },
    ),
  );

  const report = (data: Record<string, unknown>, status = 200) => ({ data, status });
  const answer = (c: Parameters<typeof partial>[0], r: ReturnType<typeof report>) =>
    partial(c, 'partials/memory-import-report', r.data, r.status);

  app.post('/memories/import', async (c) => {
    const form = await c.req.parseBody();
    const file = form.file;
    if (!(file instanceof File) || file.size === 0) {
      return answer(c, report({ error: 'file: choose a file to import', outcome: null }, 422));
    }
    const text = await file.text();
    try {
      const outcome = await importText(deps, text, true);
      const token = uploads.put(text, file.name);
      return answer(c, report({ error: null, outcome, token, name: file.name }));
    } catch (err) {
      if (!isAppError(err) || err.code !== 'invalid_input') throw err;
      return answer(c, report({ error: err.message, outcome: null }, 422));
    }
  });

  app.post('/memories/import/confirm', async (c) => {
    const form = await c.req.parseBody();
    const upload = typeof form.token === 'string' ? uploads.take(form.token) : null;
    if (!upload) {
      return answer(
        c,
        report(
          {
            error:
              'the previewed file is no longer here (30 minutes passed, or it was imported); choose it again',
            outcome: null,
          },
          422,
        ),
      );
    }
    const outcome = await importText(deps, upload.text, false);
    deps.log.info('memories imported by the operator', { file: upload.name });
    c.header('HX-Trigger', 'memories-changed');
    return answer(c, report({ error: null, outcome, token: null, name: upload.name }));
  });

  // The survivor is the first id (the first selected row); the wording comes from the prompt.
  app.post('/memories/bulk/merge', async (c) => {
    const ids = parseIds(await bulkIds(c));
    const prompt = c.req.header('HX-Prompt');
    try {
      const missing = await firstMissing(deps.stores, ids);
      if (missing !== undefined)
        throw new AppError('invalid_input', `ids: memory ${missing} does not exist`);
      const { survivor, merged } = await deps.knowledge.memory.merge(ids, {
        text: prompt ?? null,
      });
      deps.log.info('memories merged by the operator', { memory: survivor.id });
      if (!isHtmx(c)) return c.redirect('/memories', 303);
      c.header('HX-Trigger', 'memories-changed');
      return partial(c, 'partials/flash', {
        message: `Merged ${merged.map((m) => `#${m.id}`).join(', ')} into #${survivor.id}: ${survivor.observation}`,
      });
    } catch (err) {
      if (!isAppError(err) || err.code !== 'invalid_input') throw err;
      return partial(c, 'partials/flash', { message: `Not merged: ${err.message}` });
    }
  });

  return app;
}
