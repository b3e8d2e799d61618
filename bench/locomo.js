/**
 * LoCoMo (../shared/bench-data/locomo10.json) as the benches read it: each conversation written
 * as a Claude Code transcript (speaker A the user, speaker B the assistant, one line per turn,
 * the sessions' dates as timestamps), and its QA questions with evidence turns, citations
 * corrected by the audit file where it says the citation is wrong.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const LOCOMO = new URL('../../shared/bench-data/locomo10.json', import.meta.url);
const AUDIT = new URL('../../shared/bench-data/locomo10.audit-errors.json', import.meta.url);

export const CATEGORIES = {
  1: 'multi-hop',
  2: 'temporal',
  3: 'open-domain',
  4: 'single-hop',
  5: 'adversarial',
};

/** The data set and its audit, or null when it is not beside the repository. */
export function loadLocomo() {
  if (!existsSync(LOCOMO)) return null;
  const locomo = JSON.parse(readFileSync(LOCOMO, 'utf8'));
  const audit = existsSync(AUDIT) ? JSON.parse(readFileSync(AUDIT, 'utf8')) : [];
  return { locomo, audit };
}

/** "1:56 pm on 8 May, 2023" -> epoch ms (UTC). */
function sessionTime(text) {
  const m = /(\d+):(\d+)\s*(am|pm)\s+on\s+(\d+)\s+(\w+),?\s+(\d{4})/i.exec(text ?? '');
  if (!m) return null;
  let hour = Number(m[1]) % 12;
  if (m[3].toLowerCase() === 'pm') hour += 12;
  // V8 reads "8 May 2023 13:56 UTC" itself: no month table of our own.
  const at = Date.parse(`${m[4]} ${m[5]} ${m[6]} ${hour}:${m[2]} UTC`);
  return Number.isNaN(at) ? null : at;
}

export function turnText(t) {
  return `${t.speaker}: ${t.text}${t.blip_caption ? ` [shares a photo: ${t.blip_caption}]` : ''}`;
}

/** Each conversation as a Claude Code transcript; returns the files and line -> dia_id maps. */
export function writeTranscripts(locomo, dir) {
  const convs = [];
  for (const [index, c] of locomo.entries()) {
    const conv = c.conversation;
    const session = `locomo-${c.sample_id}`.toLowerCase().replace(/[^a-z0-9-]/g, '-');
    const lines = [];
    const diaOfLine = new Map();
    const turns = [];
    const keys = Object.keys(conv)
      .filter((k) => /^session_\d+$/.test(k) && Array.isArray(conv[k]))
      .sort((a, b) => Number(a.split('_')[1]) - Number(b.split('_')[1]));
    for (const key of keys) {
      const start = sessionTime(conv[`${key}_date_time`]) ?? Date.UTC(2023, 0, 1);
      conv[key].forEach((t, i) => {
        const role = t.speaker === conv.speaker_a ? 'user' : 'assistant';
        const text = turnText(t);
        const timestamp = new Date(start + i * 30_000).toISOString();
        const message =
          role === 'user' ? { role, content: text } : { role, content: [{ type: 'text', text }] };
        lines.push(
          JSON.stringify({
            type: role,
            sessionId: session,
            cwd: '/bench/locomo',
            timestamp,
            message,
          }),
        );
        diaOfLine.set(lines.length, t.dia_id);
        turns.push({ dia: t.dia_id, text });
      });
    }
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `${session}.jsonl`);
    writeFileSync(file, `${lines.join('\n')}\n`);
    convs.push({
      index,
      sample: c.sample_id,
      session,
      file,
      lines: lines.length,
      diaOfLine,
      turns,
      qa: c.qa,
    });
  }
  return convs;
}

/** The conversation's questions with usable evidence, citations corrected by the audit. */
export function questions(conv, audit) {
  const corrected = new Map();
  for (const e of audit) {
    if (e.error_type === 'WRONG_CITATION' && Array.isArray(e.correct_evidence))
      corrected.set(e.question_id, e.correct_evidence);
  }
  const valid = new Set(conv.turns.map((t) => t.dia));
  const out = [];
  for (const [i, q] of conv.qa.entries()) {
    const cited = corrected.get(`locomo_${conv.index}_qa${i}`) ?? q.evidence ?? [];
    const gold = [...new Set(cited.flatMap((e) => String(e).match(/D\d+:\d+/g) ?? []))].filter(
      (d) => valid.has(d),
    );
    if (gold.length === 0) continue;
    out.push({ question: q.question, category: q.category, gold });
  }
  return out;
}
