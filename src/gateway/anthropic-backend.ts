/**
 * The Anthropic Messages API over fetch: `POST {base}/v1/messages` with `x-api-key` and
 * `anthropic-version`; JSON is asked for with structured outputs
 * (`output_config: {format: {type: "json_schema", schema}}`, the shape the Claude CLI itself
 * sends) and read from the text of the answer.
 */
import type { Backend, BackendAnswer, BackendRequest } from './types.js';
import { joinUrl, postJson, unexpectedAnswer } from '../net/http-json.js';
import { GATEWAY_HTTP } from './http-policy.js';
import { costOf } from './prices.js';

/** The CLI's aliases, as API model ids. */
const ALIASES: Record<string, string> = {
  haiku: 'claude-haiku-4-5',
  sonnet: 'claude-sonnet-4-5',
};

export function anthropicModel(model: string): string {
  return ALIASES[model.toLowerCase()] ?? model;
}

export function createAnthropicBackend(o: { url: string; key: string }): Backend {
  const endpoint = joinUrl(o.url, '/v1/messages');
  const who = 'anthropic gateway';
  return {
    name: 'anthropic',
    async call(r: BackendRequest): Promise<BackendAnswer> {
      const model = anthropicModel(r.model);
      const answer = (await postJson(
        GATEWAY_HTTP,
        who,
        endpoint,
        {
          model,
          max_tokens: r.maxTokens,
          ...(r.system ? { system: r.system } : {}),
          messages: r.messages,
          ...(r.jsonSchema
            ? { output_config: { format: { type: 'json_schema', schema: r.jsonSchema } } }
            : {}),
        },
        {
          headers: { 'x-api-key': o.key, 'anthropic-version': '2023-06-01' },
          key: o.key,
          timeoutMs: r.timeoutMs,
          ...(r.signal ? { signal: r.signal } : {}),
        },
      )) as {
        content?: { type?: string; text?: unknown }[];
        model?: unknown;
        usage?: { input_tokens?: unknown; output_tokens?: unknown };
      } | null;
      if (!answer || !Array.isArray(answer.content)) {
        throw unexpectedAnswer(GATEWAY_HTTP, who, '{"content": [{"type": "text", ...}]}', answer);
      }
      const text = answer.content
        .filter((b) => b.type === 'text' && typeof b.text === 'string')
        .map((b) => b.text as string)
        .join('');
      const num = (v: unknown) => (typeof v === 'number' ? Math.round(v) : null);
      const inputTokens = num(answer.usage?.input_tokens);
      const outputTokens = num(answer.usage?.output_tokens);
      const answered = typeof answer.model === 'string' ? answer.model : model;
      return {
        text,
        model: answered,
        inputTokens,
        outputTokens,
        costUsd: costOf(answered, inputTokens, outputTokens),
      };
    },
  };
}
