/**
 * Any OpenAI-compatible chat endpoint (OpenAI itself, Ollama, vLLM, LiteLLM, LM Studio):
 * `POST {base}/v1/chat/completions` with `Authorization: Bearer KEY` when a key is set. JSON is
 * asked for with `response_format: {type: "json_schema", json_schema: {name, schema, strict}}`.
 */
import type { Backend, BackendAnswer, BackendRequest } from './types.js';
import { bearer, joinUrl, postJson, unexpectedAnswer } from '../net/http-json.js';
import { GATEWAY_HTTP } from './http-policy.js';
import { costOf } from './prices.js';

/** Such servers are often documented with a base URL that already ends in /v1: accept both. */
export function chatEndpoint(base: string): URL {
  return /\/v1\/*$/.test(new URL(base).pathname)
    ? joinUrl(base, '/chat/completions')
    : joinUrl(base, '/v1/chat/completions');
}

export function createOpenAiBackend(o: { url: string; key: string | null }): Backend {
  const endpoint = chatEndpoint(o.url);
  const who = 'openai-compatible gateway';
  return {
    name: 'openai',
    async call(r: BackendRequest): Promise<BackendAnswer> {
      const answer = (await postJson(
        GATEWAY_HTTP,
        who,
        endpoint,
        {
          model: r.model,
          max_tokens: r.maxTokens,
          messages: [...(r.system ? [{ role: 'system', content: r.system }] : []), ...r.messages],
          ...(r.jsonSchema
            ? {
                response_format: {
                  type: 'json_schema',
                  json_schema: { name: 'result', schema: r.jsonSchema, strict: true },
                },
              }
            : {}),
        },
        {
          headers: bearer(o.key),
          key: o.key,
          timeoutMs: r.timeoutMs,
          ...(r.signal ? { signal: r.signal } : {}),
        },
      )) as {
        choices?: { message?: { content?: unknown; refusal?: unknown } }[];
        model?: unknown;
        usage?: { prompt_tokens?: unknown; completion_tokens?: unknown };
      } | null;
      const message = answer?.choices?.[0]?.message;
      if (!message)
        throw unexpectedAnswer(
          GATEWAY_HTTP,
          who,
          '{"choices": [{"message": {"content": ...}}]}',
          answer,
        );
      if (typeof message.refusal === 'string' && message.refusal !== '') {
        throw unexpectedAnswer(GATEWAY_HTTP, who, 'an answer, not a refusal', message.refusal);
      }
      const num = (v: unknown) => (typeof v === 'number' ? Math.round(v) : null);
      const inputTokens = num(answer?.usage?.prompt_tokens);
      const outputTokens = num(answer?.usage?.completion_tokens);
      const model = typeof answer?.model === 'string' ? answer.model : r.model;
      return {
        text: typeof message.content === 'string' ? message.content : '',
        model,
        inputTokens,
        outputTokens,
        costUsd: costOf(model, inputTokens, outputTokens),
      };
    },
  };
}
