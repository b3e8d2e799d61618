/** `watchkeeper conversations list|show ID|summaries ID [--json]`: read conversation memory. */
import { conversationListJson, generationJson, summaryJson } from '../../db/index.js';
import { parseConversationId } from '../../conversations/index.js';
import { AppError, isAppError } from '../../errors.js';
import { conversationDetailJson } from '../../web/api/conversation-detail.js';
import { openApp } from '../app.js';
import { flag, parse, str, toInt, unknownSubcommand, usageError } from '../args.js';
import { clip, json, shortTime, table } from '../format.js';
import type { CliIo } from '../io.js';

async function mustGet(app: ReturnType<typeof openApp>, raw: string | undefined) {
  if (raw === undefined) throw usageError('give a conversation id');
  const id = (() => {
    try {
      return parseConversationId(raw);
    } catch (err) {
      throw usageError((err as Error).message);
    }
  })();
  const conv = await app.stores.conversations.get(id);
  if (!conv) throw new AppError('not_found', `no conversation with id ${id}`);
  return conv;
}

export async function conversationsCommand(argv: string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub !== 'list' && sub !== 'show' && sub !== 'summaries') {
    throw unknownSubcommand('conversations', sub, ['list', 'show', 'summaries']);
  }
  const p = parse(
    rest,
    {
      limit: { type: 'string' },
      messages: { type: 'string' },
      cursor: { type: 'string' },
      json: { type: 'boolean' },
    },
    sub === 'list' ? 0 : 1,
  );
  const asJson = flag(p, 'json');
  const app = openApp(io);
  try {
    const { stores } = app;
    if (sub === 'list') {
      const limit = str(p, 'limit') ? toInt('--limit', str(p, 'limit')!, 1, 100_000) : 50;
      const rows = await stores.conversations.list({ limit });
      if (asJson) {
        io.stdout(json(rows.map(conversationListJson)));
        return 0;
      }
      if (rows.length === 0) {
        io.stdout('no conversations\n');
        return 0;
      }
      io.stdout(
        table(
          ['ID', 'SCOPE', 'MESSAGES', 'LAST (UTC)', 'LATEST SUMMARY', 'SUMMARIES', 'MEMORIES'],
          rows.map((c) => [
            c.id,
            `${c.scope}${c.sharedWithOps ? ' (shared)' : ''}`,
            String(c.messageCount),
            shortTime(c.updatedAt),
            c.latestStartSeq === null ? '-' : `${c.latestStartSeq}-${c.latestEndSeq}`,
            `${c.summaries}${c.processing ? ' +processing' : ''}${c.failed ? ` (${c.failed} failed)` : ''}`,
            String(c.memories),
          ]),
        ),
      );
      return 0;
    }
    const conv = await mustGet(app, p.positionals[0]);
    if (sub === 'summaries') {
      const [history, generation] = await Promise.all([
        stores.summaries.history(conv.id),
        stores.summaries.generationStats(conv.id),
      ]);
      if (asJson) {
        io.stdout(
          json({
            conversation_id: conv.id,
            history: history.map(summaryJson),
            generation: generationJson(generation),
          }),
        );
        return 0;
      }
      if (history.length === 0) {
        io.stdout(`no summaries of ${conv.id} yet\n`);
        return 0;
      }
      io.stdout(
        table(
          ['ID', 'WINDOW', 'SIZE', 'BASE', 'STATUS', 'GEN MS', 'CREATED (UTC)', 'ERROR'],
          history.map((s) => [
            String(s.id),
            `${s.startSeq}-${s.endSeq}`,
            String(s.endSeq - s.startSeq + 1),
            s.baseSummaryId === null ? '-' : `${s.baseSummaryId} (to ${s.baseEndSeq})`,
            s.status,
            s.generationTimeMs === null ? '-' : String(s.generationTimeMs),
            shortTime(s.createdAt),
            s.error ? clip(s.error, 60) : '',
          ]),
        ),
      );
      return 0;
    }
    const limit = str(p, 'messages') ? toInt('--messages', str(p, 'messages')!, 1, 100_000) : 20;
    const cursor = str(p, 'cursor');
    // The same bounded page as the API: a long conversation never comes out whole.
    const detail = await (async () => {
      try {
        return await conversationDetailJson(app, conv, limit, cursor);
      } catch (err) {
        if (isAppError(err) && err.code === 'usage') throw usageError(`--${err.message}`);
        throw err;
      }
    })();
    if (asJson) {
      io.stdout(json(detail));
      return 0;
    }
    const [memories, latest, shared] = await Promise.all([
      stores.extractions.memories(conv.id),
      stores.summaries.latestCompleted(conv.id),
      stores.scopes.isShared(conv.scope),
    ]);
    const messages = detail.messages;
    const lines = [
      `conversation ${conv.id}  scope ${conv.scope}${shared ? ' (shared with ops)' : ''}`,
      `${conv.messageCount} messages, last ${shortTime(conv.updatedAt)} UTC; extraction read through ${conv.extractedThroughSeq}`,
      latest
        ? `latest summary #${latest.id} (messages ${latest.startSeq}-${latest.endSeq}):\n${latest.text}`
        : 'no summary yet',
      '',
      `${cursor === undefined ? 'last' : 'these'} ${messages.length} messages:`,
      ...messages.map((m) => `  #${m.seq} ${m.role}: ${clip(m.content, 100)}`),
      ...(detail.next_cursor === null
        ? []
        : [`  older: watchkeeper conversations show ${conv.id} --cursor ${detail.next_cursor}`]),
      '',
      memories.length === 0 ? 'no memories extracted' : `memories extracted (${memories.length}):`,
      ...memories.map(
        (m) =>
          `  #${m.memoryId} [${m.type}, ${m.importance}/5, ${m.action}] ${clip(m.observation ?? '(deleted)', 90)} (#${m.startSeq}-${m.endSeq})`,
      ),
    ];
    io.stdout(`${lines.join('\n')}\n`);
    return 0;
  } finally {
    await app.close();
  }
}
