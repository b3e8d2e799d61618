/**
 * The OpenAI-compatible chat with the ops agent, at /v1 (where OpenAI's clients look):
 * `GET /v1/models` and `POST /v1/chat/completions`. A chat queues a run with trigger `chat` at
 * the tier its model names, the conversation as the prompt (chat-prompt.ts), through the run
 * queue every other trigger uses (429 when it is full), and answers with what the session says,
 * whole or streamed (chat-stream.ts). Bearer token only, checked with the rest in app.ts.
 * Errors are OpenAI's shape (chat-errors.ts), not the /api/v1 one.
 */
import { Hono } from 'hono';
import { z } from 'zod';

import type { AppEnv } from '../context.js';
import type { WebDeps } from '../deps.js';
import { openAiError, openAiOnError } from '../chat-errors.js';
import { followRun } from '../chat-follow.js';
import { chatModel, chatModels, modelJson } from '../chat-models.js';
import { chatPrompt } from '../chat-prompt.js';
import { completionJson, runFailure } from '../chat-reply.js';
import { streamChat } from '../chat-stream.js';
import { jsonObject } from './json-body.js';
import { validationHook } from './openapi-app.js';

const Part = z.looseObject({ type: z.string(), text: z.string().optional() });
const Message = z.looseObject({
  role: z.enum(['system', 'developer', 'user', 'assistant', 'tool', 'function']),
  content: z
    .union([z.string(), z.array(Part)])
    .nullable()
    .optional(),
});
// OpenAI's other fields (temperature, max_tokens, ...) are taken and left unused: the agent's
// tier decides how it answers.
const ChatRequest = z.looseObject({
  model: z.string().min(1, 'is required'),
  messages: z.array(Message).min(1, 'must hold at least one message'),
  stream: z.boolean().nullable().optional(),
  stream_options: z
    .looseObject({ include_usage: z.boolean().nullable().optional() })
    .nullable()
    .optional(),
});

/** Mounted at /v1. */
export function chatCompletionRoutes(deps: WebDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.onError(openAiOnError(deps.log));
  const maxTier = deps.config.runner.maxTier;
  // Models are listed as created when this server started.
  const created = Math.floor(deps.clock.now() / 1000);
  const unknownModel = (id: string) => {
    const names = chatModels(maxTier).map((m) => m.id);
    return `the model \`${id}\` does not exist: use one of ${names.join(', ')}`;
  };

  app.get('/models', (c) =>
    c.json({ object: 'list', data: chatModels(maxTier).map((m) => modelJson(m, created)) }),
  );

  app.get('/models/:id', (c) => {
    const model = chatModel(c.req.param('id'), maxTier);
    if (model) return c.json(modelJson(model, created));
    return openAiError(c, 404, {
      message: unknownModel(c.req.param('id')),
      type: 'invalid_request_error',
      code: 'model_not_found',
      param: 'model',
    });
  });

  app.post('/chat/completions', async (c) => {
    const parsed = ChatRequest.safeParse(jsonObject(c, await c.req.text()));
    if (!parsed.success) validationHook()({ target: 'json', ...parsed }, c);
    const body = parsed.data!;
    const model = chatModel(body.model, maxTier);
    if (!model) {
      return openAiError(c, 404, {
        message: unknownModel(body.model),
        type: 'invalid_request_error',
        code: 'model_not_found',
        param: 'model',
      });
    }
    const prompt = chatPrompt(body.messages);
    const ticket = deps.runner.trigger({
      trigger: 'chat',
      startTier: model.tier,
      prompt,
      alert: null,
    });
    deps.log.info('chat received', { request: ticket.id, model: model.id });
    const head = { ticket, model: model.id, created: Math.floor(deps.clock.now() / 1000) };
    if (body.stream) {
      return streamChat(c, deps, head, body.stream_options?.include_usage === true);
    }
    const pieces: string[] = [];
    const reply = await followRun(deps, ticket, (p) => pieces.push(p), c.req.raw.signal);
    const failure = await runFailure(deps.stores, reply);
    if (failure) return openAiError(c, 502, failure);
    return c.json(completionJson(head, pieces.join(''), reply));
  });

  return app;
}
