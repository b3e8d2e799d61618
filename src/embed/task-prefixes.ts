/**
 * Some embedding models are trained with a task instruction in front of the text and rank
 * noticeably worse without it (seed 000 §3 for nomic). Chosen by model name, whichever server
 * hosts the model (Ollama, or an OpenAI-compatible one such as LM Studio or vLLM).
 */

export interface TaskPrefixes {
  query: string;
  document: string;
}

const NONE: TaskPrefixes = { query: '', document: '' };

const BY_MODEL: { pattern: RegExp; prefixes: TaskPrefixes }[] = [
  // nomic-embed-text, nomic-embed-text:v1.5, nomic-ai/nomic-embed-text-v1.5 ...
  {
    pattern: /(^|\/)nomic-embed-text/i,
    prefixes: { query: 'search_query: ', document: 'search_document: ' },
  },
  // mixedbread's instruction goes on queries only.
  {
    pattern: /(^|\/)mxbai-embed-large/i,
    prefixes: { query: 'Represent this sentence for searching relevant passages: ', document: '' },
  },
];

export function taskPrefixes(model: string): TaskPrefixes {
  return BY_MODEL.find((m) => m.pattern.test(model))?.prefixes ?? NONE;
}
