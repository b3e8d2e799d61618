/** The prompt budget's token estimate: characters / 4, rounded up (no tokenizer dependency). */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}
