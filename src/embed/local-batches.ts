/**
 * The local embedder's queues: a caller's texts as a job (distinct, shortest first), split into
 * parts that fill batches of up to LOCAL_BATCH texts, queries ahead of documents, and the
 * vectors of an answered batch handed back to the jobs that asked.
 */
import type { AppError } from '../errors.js';
import { LOCAL_WHO } from './local-thread.js';
import { toUnitVectors } from './unit-vectors.js';

export const LOCAL_DIMENSION = 512;
export const LOCAL_BATCH = 32;

export interface Job {
  vectors: Float32Array[];
  left: number;
  done: boolean;
  resolve(vectors: Float32Array[]): void;
  reject(err: AppError): void;
}

/** A run of one job's texts, waiting in a queue or inside a batch. */
export interface Part {
  job: Job;
  texts: string[];
  /** Position of texts[0] in the job. */
  offset: number;
}

export interface Batch {
  id: number;
  parts: Part[];
  /** How many texts it holds, for the timeout's message. */
  texts: number;
  timer: NodeJS.Timeout | undefined;
}

export /**
 * A job's distinct texts, shortest first, and where each of the caller's texts is among them.
 * The model pads every text of a batch to the longest one's tokens, and its time grows with
 * them: batches of texts of about one length cost half as much as texts taken as they come,
 * and a text said twice is embedded once.
 */
function byLength(texts: readonly string[]): { texts: string[]; slots: number[] } {
  const first = new Map<string, number>();
  for (const t of texts) if (!first.has(t)) first.set(t, first.size);
  const distinct = [...first.keys()];
  const order = distinct.map((_, i) => i).sort((a, b) => distinct[a]!.length - distinct[b]!.length);
  const rank = new Array<number>(order.length);
  order.forEach((d, k) => (rank[d] = k));
  return { texts: order.map((d) => distinct[d]!), slots: texts.map((t) => rank[first.get(t)!]!) };
}

export function failJob(job: Job, err: AppError): void {
  if (job.done) return;
  job.done = true;
  job.reject(err);
}

/** Up to LOCAL_BATCH texts, queries first; a long job is split across batches. */
export function takeBatch(queries: Part[], documents: Part[]): Part[] {
  const parts: Part[] = [];
  let room = LOCAL_BATCH;
  for (const queue of [queries, documents]) {
    while (room > 0 && queue.length > 0) {
      const head = queue[0]!;
      if (head.job.done) {
        queue.shift();
        continue;
      }
      if (head.texts.length <= room) {
        parts.push(head);
        queue.shift();
        room -= head.texts.length;
      } else {
        parts.push({ job: head.job, texts: head.texts.slice(0, room), offset: head.offset });
        head.texts = head.texts.slice(room);
        head.offset += room;
        room = 0;
      }
    }
  }
  return parts;
}

export function deliver(batch: Batch, flat: Float32Array, dimension: number): void {
  const rows: Float32Array[] = [];
  for (let i = 0; i * dimension < flat.length; i += 1) {
    rows.push(flat.subarray(i * dimension, (i + 1) * dimension));
  }
  let vectors: Float32Array[];
  try {
    vectors = toUnitVectors(rows, LOCAL_WHO, LOCAL_DIMENSION);
  } catch (err) {
    for (const part of batch.parts) failJob(part.job, err as AppError);
    return;
  }
  let at = 0;
  for (const { job, texts, offset } of batch.parts) {
    for (let i = 0; i < texts.length; i += 1) job.vectors[offset + i] = vectors[at + i]!;
    at += texts.length;
    job.left -= texts.length;
    if (job.left === 0 && !job.done) {
      job.done = true;
      job.resolve(job.vectors);
    }
  }
}

/**
 * Queues a job for checked texts and answers the caller's texts in their order; a repeated text
 * gets its own copy, since callers may change what they are given.
 */
export function queueJob(
  checked: string[],
  queue: Part[],
  schedule: () => void,
): Promise<Float32Array[]> {
  const { texts: ordered, slots } = byLength(checked);
  return new Promise<Float32Array[]>((resolve, reject) => {
    const job: Job = { vectors: [], left: ordered.length, done: false, resolve, reject };
    for (let i = 0; i < ordered.length; i += LOCAL_BATCH) {
      queue.push({ job, texts: ordered.slice(i, i + LOCAL_BATCH), offset: i });
    }
    schedule();
  }).then((vectors) => {
    const given = new Set<number>();
    return slots.map((slot) => {
      const v = vectors[slot]!;
      if (!given.has(slot)) {
        given.add(slot);
        return v;
      }
      return v.slice();
    });
  });
}
