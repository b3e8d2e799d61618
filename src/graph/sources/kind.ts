/**
 * Which conversation a transcript file holds: a watchkeeper session log (stream-json, `.ndjson`),
 * a Claude Code transcript (`<session>.jsonl`) or one of its subagents
 * (`<session>/subagents/agent-<id>.jsonl`). A log is watchkeeper session N only when watchkeeper's
 * own records say so (session N's log is this file), never from its name: `7.ndjson` elsewhere
 * is a saved stream named `7`, not session 7.
 */
import { basename, dirname } from 'node:path';

import type { GraphSessionKind } from '../../db/graph/graph.js';
import type { ParsedLine } from '../turns.js';
import { claudeCodeLine } from './claude-code.js';
import { watchkeeperLogLine } from './watchkeeper-log.js';

export interface SourceInfo {
  kind: GraphSessionKind;
  /** The session label: a CLI session id, `<session>/agent-<id>` or `wk-<id>`. */
  session: string;
  parentSession: string | null;
  watchkeeperSessionId: number | null;
  parse(bytes: Buffer, line: number): ParsedLine;
}

/** True for the files the graph reads. */
export function isTranscriptFile(path: string): boolean {
  return path.endsWith('.jsonl') || path.endsWith('.ndjson');
}

/** The watchkeeper session whose recorded log is this file, or null. */
export type LogOwner = (file: string) => number | null;

export function sourceOf(path: string, logOwner: LogOwner | null = null): SourceInfo | null {
  const name = basename(path);
  if (name.endsWith('.ndjson')) {
    const stem = name.slice(0, -'.ndjson'.length);
    const id = logOwner ? logOwner(path) : null;
    return {
      kind: 'watchkeeper',
      session: id === null ? stem : `wk-${id}`,
      parentSession: null,
      watchkeeperSessionId: id,
      parse: watchkeeperLogLine,
    };
  }
  if (!name.endsWith('.jsonl')) return null;
  const stem = name.slice(0, -'.jsonl'.length);
  const agent = /^agent-(.+)$/.exec(stem);
  const parentDir = dirname(path);
  if (agent && basename(parentDir) === 'subagents') {
    const parent = basename(dirname(parentDir));
    return {
      kind: 'subagent',
      session: `${parent}/agent-${agent[1]}`,
      parentSession: parent,
      watchkeeperSessionId: null,
      parse: (bytes, line) => claudeCodeLine(bytes, line, true),
    };
  }
  return {
    kind: 'claude-code',
    session: stem,
    parentSession: null,
    watchkeeperSessionId: null,
    parse: (bytes, line) => claudeCodeLine(bytes, line, false),
  };
}
