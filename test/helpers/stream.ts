/** Builders for stream-json lines shaped like the real CLI's (see shared sample-stream-json). */
let uuid = 0;
const next = () => `00000000-0000-4000-8000-${String(++uuid).padStart(12, '0')}`;

export const SESSION = '45012bfe-e406-4917-bfb6-ea536b9713e0';

export function init(model = 'claude-haiku-4-5'): string {
  return JSON.stringify({
    type: 'system',
    subtype: 'init',
    session_id: SESSION,
    model,
    tools: ['Bash'],
    uuid: next(),
  });
}

export function assistantText(
  text: string,
  opts: { id?: string; parent?: string | null } = {},
): string {
  return JSON.stringify({
    type: 'assistant',
    message: {
      id: opts.id ?? `msg_${next()}`,
      type: 'message',
      role: 'assistant',
      model: 'claude-haiku-4-5',
      content: [{ type: 'text', text }],
    },
    parent_tool_use_id: opts.parent ?? null,
    session_id: SESSION,
    uuid: next(),
  });
}

export function assistantBlocks(content: unknown[]): string {
  return JSON.stringify({
    type: 'assistant',
    message: { id: `msg_${next()}`, role: 'assistant', model: 'claude-haiku-4-5', content },
    parent_tool_use_id: null,
    session_id: SESSION,
    uuid: next(),
  });
}

export function toolUse(command: string): string {
  return assistantBlocks([
    { type: 'tool_use', id: `toolu_${uuid}`, name: 'Bash', input: { command } },
  ]);
}

export function toolResult(content: unknown): string {
  return JSON.stringify({
    type: 'user',
    message: {
      role: 'user',
      content: [{ tool_use_id: 'toolu_01', type: 'tool_result', content, is_error: false }],
    },
    parent_tool_use_id: null,
    session_id: SESSION,
    uuid: next(),
  });
}

export function userText(text: string): string {
  return JSON.stringify({
    type: 'user',
    message: { role: 'user', content: text },
    parent_tool_use_id: null,
    session_id: SESSION,
    uuid: next(),
  });
}

export function result(text: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    type: 'result',
    subtype: 'success',
    is_error: false,
    duration_ms: 400,
    duration_api_ms: 60,
    num_turns: 2,
    result: text,
    session_id: SESSION,
    total_cost_usd: 0.0002,
    usage: { input_tokens: 20, output_tokens: 40 },
    ...extra,
  });
}

/** Lines joined as the CLI prints them: each ends with a newline. */
export function transcript(lines: string[]): string {
  return lines.map((l) => `${l}\n`).join('');
}
